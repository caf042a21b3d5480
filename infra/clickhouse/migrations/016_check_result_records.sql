-- Results as records of contiguous rows (docs/platform-clickhouse-registry.md "Result records"):
-- each row's CheckResult as one JSON line, ready to serve; cells beside them; the record's counts
-- beside those, so a job's counts are a sum over a few hundred records. ReplacingMergeTree on
-- (job_id, first_row): a record written twice (a redelivered batch cut the same way) is one.
-- check_results (003) stays for jobs whose results were written before this table.
CREATE TABLE IF NOT EXISTS {database}.check_result_records (
  job_id String,
  first_row UInt32,
  last_row UInt32,
  delete_on Date,
  counts String,
  results String,
  cells Nullable(String),
  written_at DateTime DEFAULT now()
) ENGINE = ReplacingMergeTree() PARTITION BY delete_on ORDER BY (job_id, first_row)
TTL greatest(delete_on, toDate(written_at)) + INTERVAL 1 DAY
SETTINGS ttl_only_drop_parts = 1, old_parts_lifetime = 10;
