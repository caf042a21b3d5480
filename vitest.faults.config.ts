import { defineConfig } from 'vitest/config';
import { PRIVATE_CLICKHOUSE, PRIVATE_KAFKA } from './test/faults/private-servers.ts';

// The fault suite (`npm run faults`, docs/faults.md): not part of `npm test` (its jobs are large
// and it restarts servers). Every deployment it starts talks to the suite's private broker and
// ClickHouse front (test/support/servers.ts reads these variables), which it may restart.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.faults.ts'],
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/faults/global-setup.ts'],
    env: { KAFKA_BROKERS: PRIVATE_KAFKA, CLICKHOUSE_URL: PRIVATE_CLICKHOUSE },
    testTimeout: 3_600_000,
    hookTimeout: 300_000,
    reporters: ['verbose'],
  },
});
