-- Address register versions (AddressStore), built like list versions (002_lists.sql):
-- a version row changes by inserting it again with revision + 1; the active version is the one
-- with the highest activation_seq (0 = never activated).
CREATE TABLE IF NOT EXISTS {database}.address_versions (
  id String,
  revision UInt64,
  published_on String,
  created_at String,
  created_seq UInt64,
  activated_at Nullable(String),
  activation_seq UInt64,
  sealed UInt8,
  appended_count UInt64,
  block_count UInt32,
  address_count UInt64
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

-- Unit addresses in blocks of a few thousand packed rows (JSON arrays in field order), read back
-- in block order; blocks at or past the version's block_count are leftovers of an interrupted
-- append and are never read.
CREATE TABLE IF NOT EXISTS {database}.address_blocks (
  version_id String,
  block UInt32,
  addresses String
) ENGINE = ReplacingMergeTree() ORDER BY (version_id, block)
SETTINGS index_granularity = 16;
