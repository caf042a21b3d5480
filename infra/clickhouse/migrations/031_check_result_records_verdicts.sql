-- What a result file reads of a result record (services/platform/store/result-verdicts.ts;
-- docs/platform-clickhouse-registry.md "Result records"): each row's id, the record's distinct
-- verdicts and each row's verdict by number, so the file reads a few KB a record and not its
-- lines. NULL in records written before this migration, and in the inserts of a process not yet
-- upgraded: a result file reads those records' lines instead. Parts written before are not
-- rewritten: ClickHouse reads NULL for a column a part does not hold.
ALTER TABLE {database}.check_result_records
  ADD COLUMN IF NOT EXISTS ids Nullable(String),
  ADD COLUMN IF NOT EXISTS verdicts Nullable(String),
  ADD COLUMN IF NOT EXISTS verdict_rows Nullable(String);
