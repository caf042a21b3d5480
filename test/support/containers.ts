import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The testcontainers path of the test harness (docs/deployment.md "Tests: infra/local or
 * containers"): Kafka and ClickHouse started as containers of the project's own images
 * (infra/local/docker.sh builds them) on the host network, so every port is a loopback port.
 *
 * The switch is ROBINSON_TESTCONTAINERS: `1` runs the container suites, `0` leaves them out; unset,
 * they run under CI=true (where a missing engine is then a failure) and wherever an engine
 * answers (DOCKER_HOST, or infra/local/docker.sh's private engine).
 */
export const LOCAL_ENGINE_SOCKET = join(
  process.env.DOCKER_STATE_DIR ?? join(process.env.ROBINSON_LOCAL ?? join(tmpdir(), 'robinson-local'), 'docker'),
  'docker.sock',
);

/** The engine testcontainers talks to: DOCKER_HOST when set, else the private engine's socket. */
export function dockerHost(): string {
  return process.env.DOCKER_HOST ?? `unix://${LOCAL_ENGINE_SOCKET}`;
}

export function containerSuitesEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const choice = env.ROBINSON_TESTCONTAINERS;
  if (choice === '1') return true;
  if (choice === '0') return false;
  if (choice !== undefined && choice !== '') {
    throw new Error(`ROBINSON_TESTCONTAINERS must be 1, 0 or unset, not ${JSON.stringify(choice)}`);
  }
  if (env.CI === 'true') return true;
  return engineAnswers(env.DOCKER_HOST ?? `unix://${LOCAL_ENGINE_SOCKET}`);
}

/** Docker's `/_ping` over its unix socket (the config is synchronous, hence curl, not fetch). */
function engineAnswers(host: string): boolean {
  if (!host.startsWith('unix://')) return false;
  const ping = spawnSync('curl', ['-fsS', '--max-time', '2', '--unix-socket', host.slice('unix://'.length), 'http://engine/_ping'], { encoding: 'utf8' });
  return ping.status === 0 && ping.stdout.trim() === 'OK';
}

/**
 * Labels on every container the harness starts. The reaper (Ryuk) cannot run here (its image
 * would have to be pulled), so cleanup is ours: the global teardown removes the containers of its
 * session, and every setup first removes containers whose owning process has died (a run that
 * was killed before its teardown).
 */
export const HARNESS_LABEL = 'robinson.harness';
export const SESSION_LABEL = 'robinson.session';
export const OWNER_PID_LABEL = 'robinson.owner-pid';

/** The project's images, tagged `current` by infra/local/docker.sh. */
export const images = {
  kafka: process.env.ROBINSON_KAFKA_IMAGE ?? 'robinson-kafka:current',
  clickhouse: process.env.ROBINSON_CLICKHOUSE_IMAGE ?? 'robinson-clickhouse:current',
  service: process.env.ROBINSON_SERVICE_IMAGE ?? 'robinson-check:current',
} as const;

/**
 * A loopback port free right now. The containers share the host's network, so the port is taken
 * there; asking the kernel for one (port 0) avoids the fixed ports of the shared infra/local
 * servers and of concurrent runs.
 */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a process of this machine (an owner recorded in a label or a name) still runs. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
