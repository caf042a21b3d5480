-- Monitors (MonitorStore, docs/monitors.md). A monitor record changes by inserting it again with
-- revision + 1, read with FINAL; org_id, mode and created_at never change between revisions,
-- `deleted` is filtered after FINAL picks the latest.
CREATE TABLE IF NOT EXISTS {database}.monitors (
  id String,
  revision UInt64,
  org_id LowCardinality(String),
  mode Enum8('live' = 1, 'test' = 2),
  deleted UInt8,
  created_at String,
  doc String
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

-- Contacts in blocks of up to 2,000: the people sealed with the monitor's data key (AES-256-GCM),
-- their contact keys (HMACs under the same key) in the clear for the projection's lookups.
CREATE TABLE IF NOT EXISTS {database}.monitor_contact_blocks (
  monitor_id String,
  generation UInt32,
  block UInt32,
  keys String,
  sealed String
) ENGINE = ReplacingMergeTree() ORDER BY (monitor_id, generation, block)
SETTINGS index_granularity = 64;

-- One row per contact of a re-check job: its verdict and its change since the last check. The
-- rows of a monitor's last completed check are its contacts' last verdicts; older runs are dropped.
CREATE TABLE IF NOT EXISTS {database}.monitor_run_rows (
  monitor_id String,
  job_id String,
  key String,
  row UInt32,
  status LowCardinality(String),
  level Nullable(UInt8),
  change LowCardinality(String)
) ENGINE = ReplacingMergeTree() ORDER BY (monitor_id, job_id, key);
