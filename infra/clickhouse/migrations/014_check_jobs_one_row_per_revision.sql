-- One row per (job id, revision): every write of check_jobs carries the insert deduplication
-- token `<id>/<revision>`, and the table remembers the last 100,000 tokens, so of two processes
-- that read revision n and both write n + 1 only the first row is stored. The store reads the
-- revision back and the loser applies its change again (compare-and-set; JobStore.updateJob).
-- Before this a concurrent write was silently undone (docs/faults.md "One callback").
ALTER TABLE {database}.check_jobs MODIFY SETTING non_replicated_deduplication_window = 100000;
