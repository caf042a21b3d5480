-- Check jobs (JobStore): the columns the store filters on plus the whole record as JSON in doc.
-- A change inserts the record again with revision + 1; reads use FINAL.
CREATE TABLE IF NOT EXISTS {database}.check_jobs (
  id String,
  revision UInt64,
  org_id String,
  mode Enum8('live' = 1, 'test' = 2),
  status Enum8('draft' = 1, 'awaiting_payment' = 2, 'queued' = 3, 'running' = 4, 'done' = 5, 'failed' = 6, 'deleted' = 7),
  delete_after_ms Int64,
  doc String
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

-- Per-row results, idempotent on (job_id, row): a redelivered row is a duplicate of the same key,
-- removed by merges and never seen through FINAL. Partitioned by the day the job's personal data
-- is due for deletion, so retention drops whole partitions; DELETE of one job is a mutation.
-- level is the match level 0..5, or -1 for none (counted as unread).
CREATE TABLE IF NOT EXISTS {database}.check_results (
  job_id String,
  row UInt32,
  delete_on Date,
  status Enum8('allowed' = 1, 'blocked' = 2, 'manual' = 3),
  level Int8,
  record String
) ENGINE = ReplacingMergeTree() PARTITION BY delete_on ORDER BY (job_id, row);
