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
