-- Monitor run rows ordered by (monitor, job, row) instead of (monitor, job, key): a re-check of
-- the same contacts reads its chunk's previous verdicts as one row range (a granule or two)
-- instead of looking up hundreds of random keys, each lookup touching nearly every granule of
-- the previous run (docs/monitors.md "Performance"). Lookups by key stay for contacts whose
-- position changed (a replaced contact set). Rows of a job map one to one to contact keys, so
-- deduplicating on the row is deduplicating on the key. The old table's rows (the last checks'
-- verdicts) are copied, then it is emptied (not dropped: a second process migrating at the same
-- time may still run the copy; it then copies nothing).
CREATE TABLE IF NOT EXISTS {database}.monitor_run_rows_by_row (
  monitor_id String,
  job_id String,
  key String,
  row UInt32,
  status LowCardinality(String),
  level Nullable(UInt8),
  change LowCardinality(String)
) ENGINE = ReplacingMergeTree() ORDER BY (monitor_id, job_id, row);

INSERT INTO {database}.monitor_run_rows_by_row (monitor_id, job_id, key, row, status, level, change)
SELECT monitor_id, job_id, key, row, status, level, change FROM {database}.monitor_run_rows;

TRUNCATE TABLE IF EXISTS {database}.monitor_run_rows;
