-- The intake's progress per job (JobStore touchIntake), kept apart from the job record so that
-- the API (intake) and the projection never write the same row. One row per (job_id, closed)
-- survives merges, the latest sign of life; readers take max() per job_id, so duplicates before a
-- merge change nothing and a closed intake stays closed.
CREATE TABLE IF NOT EXISTS {database}.check_job_intakes (
  job_id String,
  closed UInt8,
  last_seen_ms Int64
) ENGINE = ReplacingMergeTree(last_seen_ms) ORDER BY (job_id, closed);
