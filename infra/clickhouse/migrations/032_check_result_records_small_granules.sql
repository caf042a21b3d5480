-- Result records in granules of about one record (docs/platform-clickhouse-registry.md "Result
-- records", "Small granules"): at the default index_granularity_bytes (10 MiB) a granule held ~31
-- records of ~500 KB, so a page of ~11 records decompressed one or two whole granules, 3-5x its
-- bytes (docs/performance.md "Measurements"). The setting cannot be changed on a table that
-- exists, so new records go to a new table with the same columns, key, partitions and TTL.
CREATE TABLE IF NOT EXISTS {database}.check_result_records_small_granules (
  job_id String,
  first_row UInt32,
  last_row UInt32,
  delete_on Date,
  counts String,
  results String,
  cells Nullable(String),
  written_at DateTime DEFAULT now(),
  record_format UInt8 DEFAULT 1,
  ids Nullable(String),
  verdicts Nullable(String),
  verdict_rows Nullable(String)
) ENGINE = ReplacingMergeTree() PARTITION BY delete_on ORDER BY (job_id, first_row)
TTL greatest(delete_on, toDate(written_at)) + INTERVAL 1 DAY
SETTINGS ttl_only_drop_parts = 1, old_parts_lifetime = 10, index_granularity_bytes = 262144;
-- The old table's records are not copied: they stay where they are and every read of records
-- reads both tables, each by its own key (services/platform/store/clickhouse/jobs.ts
-- `bothTables`; a key lookup in a table without the job's records costs a few marks). A copy
-- would hold the migration for as long as every stored job's records take to rewrite, and a
-- process not yet upgraded still writes the old table. Every delete names both tables
-- (purgeJob, dropResultsDueBefore) and both keep their TTL, so retention deletion stays exact.
-- The old table is empty once its last records are due; a later migration may then drop it.
