/**
 * A poison message in the middle of a 100,000-row job on Kafka + ClickHouse (two matcher
 * processes and a projection process). The scenario: poison-scenario.ts; the same on the
 * embedded default in poison.embedded.test.ts.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { poisonMessageScenario } from './poison-scenario.ts';

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startDistributed(receiver, { matchers: 2, jobChunkRows: 2_000 });
});

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
});

describe('a poison message on Kafka + ClickHouse', () => {
  it('fails its 100,000-row job once with unreadable_message, is dead-lettered as sent, and the next job is done', async () => {
    await poisonMessageScenario({ ...deployment, receiver }, deployment.platform.log, deployment.env.KAFKA_TOPIC_PREFIX);
  }, 300_000);
});
