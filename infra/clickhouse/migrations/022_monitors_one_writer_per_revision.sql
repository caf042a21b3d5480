-- One writer per monitor revision (services/platform/store/clickhouse/monitors.ts): every revision
-- is inserted with insert_deduplication_token = id/revision, and this table now remembers the
-- last 10,000 tokens, so of two processes writing the same revision (the API replacing contacts,
-- the monitor service moving a run on) exactly one row is stored; the other writer reads that and
-- applies its change again on top. Before, the later insert replaced the earlier one whole and
-- its change was lost (a PUT answered 200 whose new contacts the monitor never checked).
ALTER TABLE {database}.monitors MODIFY SETTING non_replicated_deduplication_window = 10000;
