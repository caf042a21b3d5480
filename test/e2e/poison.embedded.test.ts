/**
 * A poison message in the middle of a 100,000-row job on the embedded default (npm start's
 * wiring: matcher and projection in worker threads on the same database file). The scenario:
 * poison-scenario.ts; the same on Kafka + ClickHouse in poison.distributed.test.ts.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import { poisonMessageScenario } from './poison-scenario.ts';

let receiver: CallbackReceiver;
let deployment: EmbeddedDeployment;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startEmbedded(receiver, { workers: true, jobChunkRows: 2_000 });
});

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
});

describe('a poison message on the embedded default', () => {
  it('fails its 100,000-row job once with unreadable_message, is dead-lettered as sent, and the next job is done', async () => {
    await poisonMessageScenario({ ...deployment, receiver }, deployment.platform.log, '');
  }, 300_000);
});
