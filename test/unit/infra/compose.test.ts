import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema } from '../../../services/platform/config.ts';
import { SERVICE_NAMES } from '../../../services/processes.ts';

/**
 * docker-compose.yml checked as data (test/e2e/compose.docker.test.ts runs it, with the CI
 * override, on a private engine): it parses (merge keys resolved as compose does), every service of the distributed
 * deployment is there with `npm run service -- <name>`, every variable it sets is one the config
 * knows, and Kafka runs the version the tests run against.
 */
const root = new URL('../../../', import.meta.url).pathname;
const compose = parse(readFileSync(`${root}docker-compose.yml`, 'utf8'), { merge: true }) as {
  services: Record<string, {
    image?: string; build?: { dockerfile: string }; command?: string[]; entrypoint?: string[]; environment?: Record<string, unknown>;
    depends_on?: Record<string, { condition: string }>; deploy?: { replicas?: number }; ports?: string[];
    profiles?: string[]; restart?: string; volumes?: string[];
  }>;
};
const services = compose.services;
/** Every service `npm run service -- <name>` knows runs in a container of the same name. */
const APP_SERVICES: readonly string[] = SERVICE_NAMES;

describe('docker-compose.yml', () => {
  it('has Kafka, a schema registry, a current ClickHouse and every service', () => {
    expect(APP_SERVICES).toEqual(expect.arrayContaining(['api', 'matcher', 'projection']));
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['kafka', 'schema-registry', 'clickhouse', ...APP_SERVICES]));
    expect(services.clickhouse.image).toMatch(/^clickhouse\/clickhouse-server:(2[4-9]|[3-9]\d)\./);
    expect(services['schema-registry'].image).toMatch(/^confluentinc\/cp-schema-registry:/);
  });

  it('runs each service as its own container with npm run service -- <name>', () => {
    const commands = Object.values(services).map((s) => s.command ?? []).filter((c) => c[2] === 'service');
    for (const command of commands) expect(APP_SERVICES).toContain(command[4]);
    for (const name of APP_SERVICES) {
      expect(services[name].command, name).toEqual(['npm', 'run', 'service', '--', name]);
      expect(services[name].build?.dockerfile, name).toBe('infra/docker/Dockerfile');
    }
    expect(services.matcher.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.api.ports).toEqual(['8080:8080']);
    expect(existsSync(`${root}infra/docker/Dockerfile`)).toBe(true);
  });

  it('sets only variables that services/platform/config.ts knows, and the distributed ones', () => {
    const known = new Set(Object.keys(configSchema.shape));
    for (const name of [...APP_SERVICES, 'clickhouse-migrate']) {
      const env = Object.keys(services[name].environment ?? {});
      expect(env.filter((v) => !known.has(v)), name).toEqual([]);
      expect(env, name).toEqual(expect.arrayContaining(['KAFKA_BROKERS', 'CLICKHOUSE_URL', 'SCHEMA_REGISTRY_URL']));
    }
    expect(() => configSchema.parse(services.api.environment)).not.toThrow();
  });

  it('migrates ClickHouse before the services start, with an entry point that exists', () => {
    const [, script] = services['clickhouse-migrate'].command ?? [];
    expect(existsSync(`${root}${script}`)).toBe(true);
    for (const name of APP_SERVICES) {
      expect(services[name].depends_on?.['clickhouse-migrate']?.condition, name).toBe('service_completed_successfully');
    }
  });

  it('has an admin CLI service for bootstrapping, on the same image and ClickHouse, never started by up', () => {
    const admin = services.admin;
    expect(admin.profiles).toEqual(['admin']);
    expect(admin.restart).toBe('no');
    expect(admin.build?.dockerfile).toBe('infra/docker/Dockerfile');
    expect(admin.image).toBe(services.api.image);
    const [node, script] = admin.entrypoint ?? [];
    expect(node).toBe('node');
    expect(script).toBe('services/admin/cli.ts');
    expect(existsSync(`${root}${script}`)).toBe(true);
    expect(admin.ports).toBeUndefined();
    // The stores of the services: the same distributed variables, so the CLI writes to ClickHouse.
    const known = new Set(Object.keys(configSchema.shape));
    expect(Object.keys(admin.environment ?? {}).filter((v) => !known.has(v))).toEqual([]);
    for (const name of ['KAFKA_BROKERS', 'CLICKHOUSE_URL', 'CLICKHOUSE_DATABASE', 'CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD']) {
      expect(admin.environment?.[name], name).toEqual(services.api.environment?.[name]);
    }
    // It needs migrated ClickHouse, not Kafka.
    expect(admin.depends_on).toEqual({ 'clickhouse-migrate': { condition: 'service_completed_successfully' } });
    expect(admin.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/:\/lists:ro$/)]));
  });

  it('has the service\'s own SFTP server: OpenSSH from Debian, run by the script the tests use', () => {
    const server = services['sftp-server'];
    expect(server.build?.dockerfile).toBe('infra/docker/sftp-server.Dockerfile');
    const dockerfile = readFileSync(`${root}infra/docker/sftp-server.Dockerfile`, 'utf8');
    expect(dockerfile).toMatch(/apt-get install[^\n]*openssh-server/);
    expect(dockerfile).toMatch(/COPY infra\/local\/sshd\.sh /);
    expect(dockerfile).toMatch(/CMD \["bash", "\/opt\/robinson\/sshd\.sh", "run"\]/);
    expect(existsSync(`${root}infra/local/sshd.sh`)).toBe(true);
    expect(server.ports).toEqual(['2222:22']);
    // Host key and accounts survive a rebuild: a customer's pinned host key must not change.
    expect(server.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^sftp-hostkey:/), expect.stringMatching(/^sftp-folders:/)]));
    // The poller needs the key that seals SFTP credentials; email runs only when chosen.
    expect(services.sftp.environment?.INBOUND_SECRET_KEY).toMatch(/^\$\{INBOUND_SECRET_KEY:\?/);
    expect(services.email.profiles).toEqual(['email']);
  });

  it('every depends_on names a service of the file', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect(Object.keys(services), `${name} → ${dependency}`).toContain(dependency);
      }
    }
  });

  it('runs the Kafka version pinned for the tests (infra/local/kafka/pom.xml)', () => {
    const pom = readFileSync(`${root}infra/local/kafka/pom.xml`, 'utf8');
    const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1];
    expect(services.kafka.image).toBe(`apache/kafka:${version}`);
  });
});

/**
 * docker-compose.ci.yml swaps only what cannot run on the CI machines (docs/deployment.md
 * "Production and CI compose"): images, host networking, ports and test settings; never adds a
 * service, a network or a build.
 */
describe('docker-compose.ci.yml', () => {
  const ci = parse(readFileSync(`${root}docker-compose.ci.yml`, 'utf8'), { merge: true }) as {
    services: Record<string, Record<string, unknown> & { image?: string; network_mode?: string; profiles?: string[]; command?: string[] }>;
    networks?: unknown;
  };
  const SWAPPABLE = new Set(['image', 'network_mode', 'environment', 'healthcheck', 'volumes', 'ulimits', 'profiles', 'command']);

  it('overrides only services of the production file, and only images, networking and settings', () => {
    expect(ci.networks).toBeUndefined();
    for (const [name, service] of Object.entries(ci.services)) {
      expect(Object.keys(services), name).toContain(name);
      expect(Object.keys(service).filter((key) => !SWAPPABLE.has(key)), name).toEqual([]);
      expect(service.networks, name).toBeUndefined();
    }
    // A command is replaced only for the registry's stand-in.
    expect(Object.entries(ci.services).filter(([, s]) => s.command).map(([name]) => name)).toEqual(['schema-registry']);
  });

  it('runs every started service on the host network from a local image, never building one', () => {
    for (const [name, base] of Object.entries(services)) {
      const override = ci.services[name];
      if (override?.profiles?.includes('production-only')) continue;
      expect(override?.network_mode, name).toBe('host');
      expect(override?.image, name).toMatch(/^\$\{CI_[A-Z_]+_IMAGE:-robinson-[a-z]+:current\}$/);
      if (base.build) expect(override?.image, name).toContain('robinson-check:current');
    }
  });
});
