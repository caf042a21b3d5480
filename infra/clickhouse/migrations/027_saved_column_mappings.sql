-- Saved column mappings (SavedMappingStore, docs/web.md "Saved column mappings"): one row per
-- organisation and header row, keyed by (org_id, header_key); the whole record is `body` (JSON).
-- A change inserts the row again with revision + 1 (a removal with removed = 1); reads use FINAL.
-- Numbered 027 to stay clear of migrations other branches may add meanwhile (numbers need only
-- be increasing).
CREATE TABLE IF NOT EXISTS {database}.saved_column_mappings (
  org_id String,
  header_key String,
  id String,
  revision UInt64,
  removed UInt8,
  created_at String,
  body String
) ENGINE = ReplacingMergeTree(revision) ORDER BY (org_id, header_key);
