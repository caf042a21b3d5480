import { configDefaults, defineConfig } from 'vitest/config';
import { containerSuitesEnabled } from './test/support/containers.ts';

// One run covers unit, contract, integration and e2e tests. Integration suites reach the real
// servers started by infra/local/up.sh; they fail (never skip) when a server is missing.
//
// Two projects, named in every output line (docs/deployment.md "Tests: infra/local or
// containers"): `local` runs everything against the infra/local servers; `containers` runs the
// Kafka and ClickHouse contract suites again against containers that testcontainers starts from
// the project's images, and `compose` runs the compose end-to-end test; both need a Docker engine
// (switch: ROBINSON_TESTCONTAINERS, see test/support/containers.ts).
const CONTAINER_SUITES = [
  'test/integration/event-log.kafka.test.ts',
  'test/integration/kafka-topics.test.ts',
  'test/integration/store.clickhouse.test.ts',
  'test/integration/clickhouse-front.test.ts',
];
/** docker compose end to end (docker-compose.yml + docker-compose.ci.yml): the `compose` project. */
const COMPOSE_SUITES = ['test/e2e/*.docker.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Two test files at a time, whatever the core count (vitest's default is cores - 1, so one on
    // the 2-core CI machine): most end-to-end files wait on servers and child processes, and one
    // after another the suite took over 30 minutes there. Files cannot collide: each has its own
    // topic prefix, database, SFTP and mail users, ports and temp directories, as they already
    // must beside other runs on the shared servers (docs/deployment.md "CI timing").
    maxWorkers: 2,
    // A test's time limit only bounds a failure (tests wait on signals): at 30 s, end-to-end tests
    // that would pass ran out of time on a CI machine loaded by two workers and their servers.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'local', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/**/*.docker.test.ts'],
          // Every test file and every process it spawns talks to loopback only (the guard refuses
          // the rest, test/support/loopback-only.ts). Not the Docker projects: the engine may hand
          // out bridge addresses for its containers.
          setupFiles: ['test/support/loopback-only.ts'],
        },
      },
      ...(containerSuitesEnabled()
        ? [{
          extends: true,
          test: {
            name: 'containers',
            include: CONTAINER_SUITES,
            globalSetup: ['test/support/containers-global-setup.ts'],
            setupFiles: ['test/support/containers-worker-setup.ts'],
          },
        }, {
          extends: true,
          test: { name: 'compose', include: COMPOSE_SUITES },
        }]
        : []),
    ],
  },
});
