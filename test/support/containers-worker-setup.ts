import { inject } from 'vitest';

// Setup file of the `containers` test project (vitest.config.ts): runs in each worker before the
// test file is imported, so test/support/servers.ts (which reads these variables when first
// imported) points at the containers of containers-global-setup.ts, as do child processes the
// tests start (they inherit the environment).
process.env.KAFKA_BROKERS = inject('containerKafkaBrokers');
process.env.CLICKHOUSE_URL = inject('containerClickHouseUrl');
