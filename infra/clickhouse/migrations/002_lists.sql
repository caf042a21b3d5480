-- List versions (ListStore). A version row changes by inserting it again with revision + 1.
-- org_id is '' for the national (cpr) list. The active version of (source, org_id) is the one
-- with the highest activation_seq (0 = never activated), so activating never has to touch the
-- previously active row. created_seq orders versions by creation.
CREATE TABLE IF NOT EXISTS {database}.list_versions (
  id String,
  revision UInt64,
  source Enum8('cpr' = 1, 'customer' = 2),
  org_id LowCardinality(String),
  published_on String,
  created_at String,
  created_seq UInt64,
  activated_at Nullable(String),
  activation_seq UInt64,
  sealed UInt8,
  appended_count UInt64,
  block_count UInt32,
  entry_count UInt64
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

-- Entries in blocks: one row holds up to a few thousand entries as one JSON array, so a
-- 2,000,000-entry version is about a thousand rows, read back in block order. Blocks at or past
-- the version's block_count are leftovers of an interrupted append and are never read.
CREATE TABLE IF NOT EXISTS {database}.list_entry_blocks (
  version_id String,
  block UInt32,
  entries String
) ENGINE = ReplacingMergeTree() ORDER BY (version_id, block)
-- Rows are large (a block is ~300 KB of JSON): a small granule lets a read of a few blocks touch
-- only those, instead of the default 8,192 rows (every block of a version) per granule.
SETTINGS index_granularity = 16;
