-- Result records carry the format they were written in (services/platform/store/job-results.ts
-- RESULT_RECORD_FORMAT), so a later format can be read beside the old ones: the reader picks per
-- record (docs/platform-clickhouse-registry.md "Record formats"). Records written before this
-- column are format 1, and so are the inserts of a process not yet upgraded (they name no
-- record_format): DEFAULT 1. Parts written before it are not rewritten: ClickHouse reads the
-- default for a column a part does not hold.
ALTER TABLE {database}.check_result_records ADD COLUMN IF NOT EXISTS record_format UInt8 DEFAULT 1;
