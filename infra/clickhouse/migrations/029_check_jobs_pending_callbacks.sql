-- listPendingCallbacks (every projection, once a minute) read every job's latest revision (FINAL
-- over the whole table) and its JSON. callback_pending marks a revision whose callback is pending,
-- computed at insert from doc (the first "state" key of the record is callback.state), and a set
-- index on it lets the query find the few ids with such a revision without reading the granules
-- that hold none; FINAL then reads those ids only (docs/architecture.md "Pending callbacks").
ALTER TABLE {database}.check_jobs ADD COLUMN IF NOT EXISTS callback_pending UInt8
  MATERIALIZED visitParamExtractString(doc, 'state') = 'pending';
ALTER TABLE {database}.check_jobs ADD INDEX IF NOT EXISTS check_jobs_callback_pending callback_pending TYPE set(2) GRANULARITY 1;
-- Parts written before this migration: store the column and build the index for them too.
ALTER TABLE {database}.check_jobs MATERIALIZE COLUMN callback_pending;
ALTER TABLE {database}.check_jobs MATERIALIZE INDEX check_jobs_callback_pending;
