-- Billable usage (UsageStore): one row per (kind, ref), a redelivered usage event merges into it.
-- Read with FINAL, so duplicates not yet merged count once.
CREATE TABLE IF NOT EXISTS {database}.usage_entries (
  month String,
  org_id String,
  kind String,
  ref String,
  count Int64
) ENGINE = ReplacingMergeTree() ORDER BY (month, org_id, kind, ref);
