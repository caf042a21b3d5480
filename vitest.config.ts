import { defineConfig } from 'vitest/config';

// One run covers unit, contract, integration and e2e tests. Integration suites reach the real
// servers started by infra/local/up.sh; they fail (never skip) when a server is missing.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
