-- Check jobs (JobStore): the columns the store filters on plus the whole record as JSON in doc.
-- A change inserts the record again with revision + 1; reads use FINAL.
CREATE TABLE IF NOT EXISTS {database}.check_jobs (
  id String,
  revision UInt64,
  org_id LowCardinality(String),
  mode Enum8('live' = 1, 'test' = 2),
  status Enum8('draft' = 1, 'awaiting_payment' = 2, 'queued' = 3, 'running' = 4, 'done' = 5, 'failed' = 6, 'deleted' = 7),
  delete_after_ms Int64,
  doc String
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

-- Per-row results, idempotent on (job_id, row): a redelivered row is a duplicate of the same key,
-- removed by merges and never seen through FINAL. Partitioned by the day the job's personal data
-- is due for deletion, so retention drops whole partitions; purging one job is a lightweight
-- DELETE. level is the match level 0..5, or -1 for none (counted as unread).
-- TTL is the second line behind the retention sweep (dropResultsDueBefore): should the sweep stop,
-- merges still drop a day's part the day after it is due. A row written after its due day (a late
-- redelivery) lives until the day after it was written, never shorter, so a row is never gone
-- before the code that wrote it has seen it stored.
CREATE TABLE IF NOT EXISTS {database}.check_results (
  job_id String,
  row UInt32,
  delete_on Date,
  status Enum8('allowed' = 1, 'blocked' = 2, 'manual' = 3),
  level Int8,
  record String,
  written_at DateTime DEFAULT now()
) ENGINE = ReplacingMergeTree() PARTITION BY delete_on ORDER BY (job_id, row)
TTL greatest(delete_on, toDate(written_at)) + INTERVAL 1 DAY
SETTINGS ttl_only_drop_parts = 1;
