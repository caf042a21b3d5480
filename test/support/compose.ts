/**
 * The distributed deployment as docker compose runs it (docker-compose.yml + docker-compose.ci.yml,
 * docs/deployment.md), for the compose end-to-end test and the bench: a stack of its own (project
 * name, free loopback ports, its own volumes) on the engine of infra/local/docker.sh.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dockerHost, freeLoopbackPort, processAlive } from './containers.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
/** Debian's client matches the engine (20.10); a newer one on PATH would work too. */
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
/** docker-compose on the merged CI files (the script says why they are merged). */
const COMPOSE_CI = join(ROOT, 'infra/local/compose-ci.sh');

/** `docker <args>` on the engine the harness uses (not necessarily a stack's); stdout, trimmed. */
export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run(DOCKER, args, { env: { ...process.env, DOCKER_HOST: dockerHost() }, maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

export interface ComposeStack {
  project: string;
  baseUrl: string;
  clickhouseUrl: string;
  kafkaBrokers: string;
  /** Where `admin lists import --file /lists/<name>` reads from. */
  listsDir: string;
  env: Record<string, string>;
  /** `docker-compose … <args>` for this stack; stdout. */
  compose(...args: string[]): Promise<string>;
  /** `docker <args>` on the same engine; stdout. */
  docker(...args: string[]): Promise<string>;
  /** Container ids of one service (`docker-compose ps -q`). */
  containers(service: string): Promise<string[]>;
  /** `docker-compose down -v`, and the temporary directories. */
  down(): Promise<void>;
}

export interface ComposeOptions {
  matchers?: number;
  /** Projection replicas (default 1; docker-compose.yml runs 2). */
  projections?: number;
  /** The callback receiver's certificate (PEM file), trusted by the services. */
  callbackCaFile?: string;
}

export async function startComposeStack(options: ComposeOptions = {}): Promise<ComposeStack> {
  await removeOrphanStacks();
  // The owner's pid in the name: a stack whose test process died is found and removed by the next.
  const project = `robinson-e2e-${process.pid}-${randomBytes(3).toString('hex')}`;
  const ports = await distinctFreePorts(4);
  const [kafkaPort, controllerPort, clickhousePort, apiPort] = ports;
  // Readable by the services' unprivileged user (uid 1000): mkdtemp makes 0700 directories.
  const listsDir = mkdtempSync(join(tmpdir(), 'compose-lists-'));
  chmodSync(listsDir, 0o755);
  const caDir = mkdtempSync(join(tmpdir(), 'compose-ca-'));
  chmodSync(caDir, 0o755);
  if (options.callbackCaFile) {
    copyFileSync(options.callbackCaFile, join(caDir, 'cert.pem'));
    chmodSync(join(caDir, 'cert.pem'), 0o644);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    DOCKER_HOST: dockerHost(),
    COMPOSE_PROJECT_NAME: project,
    CI_KAFKA_PORT: String(kafkaPort),
    CI_KAFKA_CONTROLLER_PORT: String(controllerPort),
    CI_CLICKHOUSE_PORT: String(clickhousePort),
    CI_API_PORT: String(apiPort),
    CI_LISTS_DIR: listsDir,
    CI_CALLBACK_CA_DIR: caDir,
    CI_LOG_LEVEL: 'warn',
    INBOUND_SECRET_KEY: randomBytes(32).toString('base64'),
  };
  const exec = async (file: string, args: string[]) => {
    try {
      return (await run(file, args, { env, cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout;
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${file} ${args.join(' ')} failed: ${e.message}\n${e.stderr ?? ''}`);
    }
  };
  const stack: ComposeStack = {
    project,
    baseUrl: `http://127.0.0.1:${apiPort}`,
    clickhouseUrl: `http://127.0.0.1:${clickhousePort}`,
    kafkaBrokers: `127.0.0.1:${kafkaPort}`,
    listsDir,
    env,
    compose: (...args) => exec('bash', [COMPOSE_CI, ...args]),
    docker: (...args) => exec(DOCKER, args),
    async containers(service) {
      return (await exec('bash', [COMPOSE_CI, 'ps', '-q', service])).split('\n').filter(Boolean);
    },
    async down() {
      try {
        await exec('bash', [COMPOSE_CI, 'down', '--volumes', '--remove-orphans', '--timeout', '10']);
      } finally {
        rmSync(listsDir, { recursive: true, force: true });
        rmSync(caDir, { recursive: true, force: true });
      }
    },
  };
  try {
    // No --build: the images are infra/local/docker.sh's; compose waits for the healthy broker
    // and ClickHouse and for the migration to complete before it starts the services.
    // --scale: compose 1.29 ignores `deploy.replicas` of docker-compose.yml (compose v2 reads it).
    await stack.compose('up', '-d', '--no-build', '--scale', `matcher=${options.matchers ?? 2}`, '--scale', `projection=${options.projections ?? 1}`);
    await waitForApi(stack.baseUrl, 300_000);
  } catch (error) {
    const logs = await exec('bash', [COMPOSE_CI, 'logs', '--no-color', '--tail', '40']).catch(() => '');
    await stack.down().catch(() => undefined);
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
  return stack;
}

/**
 * Removes the containers and volumes of stacks whose test process is gone (killed before its
 * `down`): compose has no reaper, the project name carries the owner's pid.
 */
async function removeOrphanStacks(): Promise<void> {
  const label = 'com.docker.compose.project';
  const projects = new Set((await docker('ps', '-a', '--filter', `label=${label}`, '--format', `{{.Label "${label}"}}`)).split('\n').filter(Boolean));
  for (const project of projects) {
    const owner = /^robinson-e2e-(\d+)-[0-9a-f]+$/.exec(project)?.[1];
    if (!owner || processAlive(Number(owner))) continue;
    const ids = (await docker('ps', '-aq', '--filter', `label=${label}=${project}`)).split('\n').filter(Boolean);
    if (ids.length > 0) await docker('rm', '-f', '-v', ...ids);
    const volumes = (await docker('volume', 'ls', '-q', '--filter', `label=${label}=${project}`)).split('\n').filter(Boolean);
    if (volumes.length > 0) await docker('volume', 'rm', ...volumes);
  }
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freeLoopbackPort());
  return [...ports];
}

/** The API container listens: any HTTP answer (401 without a key) will do. */
async function waitForApi(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fetch(new URL('/v2/check-jobs', baseUrl), { signal: AbortSignal.timeout(2000) }).catch(() => null);
    if (answer) return;
    if (Date.now() > deadline) throw new Error(`the API container did not answer on ${baseUrl} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Network interfaces of this host that are bridges (a bridge has /sys/class/net/<if>/bridge). */
export function bridgeInterfaces(): string[] {
  return readdirSync('/sys/class/net').filter((name) => existsSync(join('/sys/class/net', name, 'bridge')));
}
