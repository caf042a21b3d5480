import type { TestProject } from 'vitest/node';
import {
  dockerHost,
  freeLoopbackPort,
  HARNESS_LABEL,
  images,
  OWNER_PID_LABEL,
  processAlive,
  SESSION_LABEL,
} from './containers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    containerKafkaBrokers: string;
    containerClickHouseUrl: string;
  }
}

/**
 * Global setup of the `containers` test project (vitest.config.ts): one Kafka and one ClickHouse
 * container for the whole run, on free loopback ports (host network), handed to the workers with
 * `provide` (test/support/containers-worker-setup.ts points servers.ts at them). A container that
 * does not start throws here, which fails the run: never a skip.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.DOCKER_HOST ??= dockerHost();
  // Ryuk's image cannot be pulled here; cleanup is the teardown below plus removeOrphans().
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  // Without the override testcontainers looks for the gateway of the `bridge` network, which this
  // engine does not have (docs/deployment.md): with host networking the host is loopback.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const session = `${process.pid}-${Date.now().toString(36)}`;
  const labels = { [HARNESS_LABEL]: 'testcontainers', [SESSION_LABEL]: session, [OWNER_PID_LABEL]: String(process.pid) };
  const dockerode = (await getContainerRuntimeClient()).container.dockerode;

  async function removeContainers(filter: (labels: Record<string, string>) => boolean): Promise<void> {
    const listed = await dockerode.listContainers({ all: true, filters: { label: [HARNESS_LABEL] } });
    await Promise.all(
      listed.filter((c) => filter(c.Labels)).map((c) => dockerode.getContainer(c.Id).remove({ force: true, v: true })),
    );
  }

  // A run killed before its teardown left its containers behind: their owner pid is gone.
  await removeContainers((l) => !processAlive(Number(l[OWNER_PID_LABEL])));

  const [kafkaPort, controllerPort, clickhousePort] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
  const started = await Promise.allSettled([
    new GenericContainer(images.kafka)
      .withNetworkMode('host')
      .withLabels(labels)
      .withEnvironment({ KAFKA_PORT: String(kafkaPort), KAFKA_CONTROLLER_PORT: String(controllerPort) })
      // The broker answers only once the controller quorum has formed; an open port is the
      // engine's own readiness signal the kafkajs clients then retry against.
      .withWaitStrategy(Wait.forSuccessfulCommand(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/${kafkaPort}'`))
      .withStartupTimeout(180_000)
      .start(),
    new GenericContainer(images.clickhouse)
      .withNetworkMode('host')
      .withLabels(labels)
      .withEnvironment({ CHDB_HTTP_PORT: String(clickhousePort) })
      // /ping answers "Ok." only once the engine has loaded (infra/local/chdb/front.py).
      .withWaitStrategy(Wait.forSuccessfulCommand(`curl -fsS http://127.0.0.1:${clickhousePort}/ping`))
      .withStartupTimeout(180_000)
      .start(),
  ]);
  const teardown = async () => {
    await removeContainers((l) => l[SESSION_LABEL] === session);
  };
  const failed = started.filter((s) => s.status === 'rejected');
  if (failed.length > 0) {
    await teardown();
    const reasons = failed.map((f) => String(f.reason)).join('; ');
    throw new Error(
      `containers did not start (${reasons}); the images come from \`bash infra/local/docker.sh start\`, ` +
        'ROBINSON_TESTCONTAINERS=0 leaves the container suites out',
    );
  }
  const brokers = `127.0.0.1:${kafkaPort}`;
  const clickhouseUrl = `http://127.0.0.1:${clickhousePort}`;
  project.provide('containerKafkaBrokers', brokers);
  project.provide('containerClickHouseUrl', clickhouseUrl);
  console.log(`[containers] Kafka ${images.kafka} on ${brokers}, ClickHouse ${images.clickhouse} on ${clickhouseUrl} (session ${session})`);
  return teardown;
}
