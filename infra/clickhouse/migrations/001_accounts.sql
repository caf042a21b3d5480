-- Organisations and API keys (AccountStore). Rows are never updated in place: every change
-- inserts the whole row again with revision + 1, and reads use FINAL (ReplacingMergeTree keeps
-- the highest revision). Timestamps are ISO-8601 text, as the API shows them. Written for
-- ClickHouse 25.8 (LowCardinality for the few distinct organisations and add-on names).
CREATE TABLE IF NOT EXISTS {database}.organisations (
  id String,
  revision UInt64,
  name String,
  stop_level UInt8,
  plan Enum8('annual' = 1, 'pay_per_list' = 2),
  api_agreement UInt8,
  suspended UInt8,
  retention_days UInt8,
  addons Array(LowCardinality(String)),
  created_at String
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

CREATE TABLE IF NOT EXISTS {database}.api_keys (
  id String,
  revision UInt64,
  org_id LowCardinality(String),
  mode Enum8('live' = 1, 'test' = 2),
  key_hash String,
  prefix String,
  created_at String,
  revoked_at Nullable(String)
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;
