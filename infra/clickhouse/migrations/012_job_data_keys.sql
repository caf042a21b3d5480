-- Per-job data keys (crypto-shredding, docs/privacy-and-proof.md): AES-256 keys wrapped by a
-- master key, one row per (job_id, key_id); a key is never changed, only deleted. Deletion is a
-- synchronous ALTER TABLE … DELETE (a mutation that rewrites the parts), not a lightweight
-- DELETE, so the wrapped bytes leave the disk before the call returns. The table stays small
-- (one row per live job and writing process), so rewriting a part costs little.
CREATE TABLE IF NOT EXISTS {database}.job_data_keys (
  job_id String,
  key_id String,
  master_kid String,
  wrapped String,
  created_at String
) ENGINE = ReplacingMergeTree() ORDER BY (job_id, key_id);

-- A mutation or an applied delete mask writes new parts; the old ones stay on disk, inactive,
-- for old_parts_lifetime (default 480 s) in case of a crash right after. Personal data of a
-- purged job (results, earlier job record revisions with the preview) and deleted data keys
-- should leave the disk sooner: 10 s.
ALTER TABLE {database}.job_data_keys MODIFY SETTING old_parts_lifetime = 10;
ALTER TABLE {database}.check_results MODIFY SETTING old_parts_lifetime = 10;
ALTER TABLE {database}.check_jobs MODIFY SETTING old_parts_lifetime = 10;

-- Idempotency records shared by every API process (docs/decisions.md §6, docs/privacy-and-proof.md
-- "Idempotency across API processes"). Append-only events of (scope, key): a claim of
-- generation `epoch` (kind 'claim', with its owner), its answer ('done') or its release
-- ('abandon'). One winner per generation: every claim row is inserted with
-- insert_deduplication_token = scope/key/epoch, and this table remembers the last 100,000 tokens
-- (non_replicated_deduplication_window), so of concurrent claims of one generation exactly one
-- row is stored and its owner is the winner. The body may hold personal data (resolved
-- addresses): purgeExpired (run by the API) deletes records past expires_ms. No TTL: rows with
-- expiry times in the past would vanish on the next merge, before purgeExpired counts them.
CREATE TABLE IF NOT EXISTS {database}.idempotency_events (
  scope String,
  key String,
  epoch UInt64,
  kind Enum8('claim' = 1, 'done' = 2, 'abandon' = 3),
  owner String,
  fingerprint String,
  status UInt16,
  body String,
  expires_ms Int64,
  lease_ms Int64
) ENGINE = MergeTree() ORDER BY (scope, key, epoch)
SETTINGS non_replicated_deduplication_window = 100000, old_parts_lifetime = 10;

-- Rate-limit consumption shared by the API processes (docs/privacy-and-proof.md "Rate limits
-- across API processes"): each process writes, a few times a second, how many requests it has
-- let through per API key since it started (a growing total, so a lost or repeated row changes
-- nothing); each reads the other processes' latest totals. Rows matter for a minute.
CREATE TABLE IF NOT EXISTS {database}.rate_usage (
  key String,
  process String,
  total UInt64,
  at_ms Int64
) ENGINE = MergeTree() ORDER BY (key, process, at_ms)
TTL toDateTime(intDiv(at_ms, 1000)) + INTERVAL 10 MINUTE;
