-- The service's own keys (KeyRing: certificate signing keys, cursor secrets). A key is never
-- changed: one row per (purpose, kid); a duplicate insert merges into the same row.
CREATE TABLE IF NOT EXISTS {database}.service_keys (
  purpose String,
  kid String,
  secret String,
  created_at String
) ENGINE = ReplacingMergeTree() ORDER BY (purpose, kid);
