-- Connectors (ConnectorStore, docs/decisions.md §16, docs/connectors.md): scheduled HTTPS pulls and the
-- status of each one's last pull. One table keyed by (kind, id); the whole record is `body`
-- (JSON). Rows are never updated in place: a change inserts the record again with revision + 1,
-- reads use FINAL.
CREATE TABLE IF NOT EXISTS {database}.connector_records (
  kind Enum8('connector' = 1, 'status' = 2),
  id String,
  revision UInt64,
  org_id String,
  created_at String,
  removed UInt8,
  body String
) ENGINE = ReplacingMergeTree(revision) ORDER BY (kind, id);
