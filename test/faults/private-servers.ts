/**
 * The fault suite's own Kafka broker and ClickHouse (chDB) front: the same scripts and binaries as
 * infra/local (kafka.sh, chdb.sh), on other loopback ports and state directories, so the suite can
 * restart them without touching the shared servers other test runs use.
 *
 * Ports: Kafka 29192 (controller 29193), chDB front 18224. (pipeline.distributed's broker-restart
 * test has 29092/29093.)
 */
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const LOCAL = join(import.meta.dirname, '../../infra/local');
const STATE = join(tmpdir(), 'robinson-faults');

export const PRIVATE_KAFKA = '127.0.0.1:29192';
export const PRIVATE_CLICKHOUSE = 'http://127.0.0.1:18224';

const kafkaEnv = {
  ...process.env, KAFKA_PORT: '29192', KAFKA_CONTROLLER_PORT: '29193', KAFKA_STATE_DIR: join(STATE, 'kafka'),
};
const chdbEnv = { ...process.env, CHDB_HTTP_PORT: '18224', CHDB_STATE_DIR: join(STATE, 'chdb') };

/** Each script waits on its server's own readiness signal (a metadata answer, /ping). */
async function script(name: 'kafka.sh' | 'chdb.sh', action: 'start' | 'stop', env: NodeJS.ProcessEnv): Promise<void> {
  await run('bash', [join(LOCAL, name), action], { env, timeout: 180_000 });
}

export const privateKafka = {
  start: () => script('kafka.sh', 'start', kafkaEnv),
  stop: () => script('kafka.sh', 'stop', kafkaEnv),
};

export const privateClickHouse = {
  start: () => script('chdb.sh', 'start', chdbEnv),
  stop: () => script('chdb.sh', 'stop', chdbEnv),
};
