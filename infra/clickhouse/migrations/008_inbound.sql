-- Inbound channels (InboundStore, docs/decisions.md §15): drop folders, their poll status, the email sender
-- allow-list and the claims (one per dropped file or emailed attachment). One table, keyed by
-- (kind, id); the searched fields are columns, the whole record is `body` (JSON). Rows are never
-- updated in place: a change inserts the record again with revision + 1, reads use FINAL.
CREATE TABLE IF NOT EXISTS {database}.inbound_records (
  kind Enum8('drop_folder' = 1, 'folder_status' = 2, 'sender' = 3, 'claim' = 4),
  id String,
  revision UInt64,
  org_id String,
  source_ref String,
  state String,
  delete_after String,
  created_at String,
  removed UInt8,
  body String
) ENGINE = ReplacingMergeTree(revision) ORDER BY (kind, id);
