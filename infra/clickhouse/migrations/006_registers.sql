-- Versions of reference registers (RegisterStore): the company register (kind 'companies') and
-- the phone directory file (kind 'phones'). Same design as list versions (002_lists.sql): a
-- version row changes by inserting it again with revision + 1; the active version of a kind is
-- the one with the highest activation_seq (0 = never activated), so activating is one write.
CREATE TABLE IF NOT EXISTS {database}.register_versions (
  id String,
  revision UInt64,
  kind Enum8('companies' = 1, 'phones' = 2),
  published_on String,
  created_at String,
  created_seq UInt64,
  activated_at Nullable(String),
  activation_seq UInt64,
  sealed UInt8,
  appended_count UInt64,
  block_count UInt32,
  record_count UInt64
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

-- Records in blocks of JSON arrays; blocks at or past the version's block_count are leftovers of
-- an interrupted append and are never read.
CREATE TABLE IF NOT EXISTS {database}.register_record_blocks (
  version_id String,
  block UInt32,
  records String
) ENGINE = ReplacingMergeTree() ORDER BY (version_id, block)
SETTINGS index_granularity = 16;
