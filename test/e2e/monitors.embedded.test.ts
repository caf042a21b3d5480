/**
 * Monitors end to end on the embedded default (npm start's wiring in this process: API, matcher
 * and projection in worker threads, the monitor service), over real HTTP with an HTTPS callback
 * receiver. The same scenarios run on Kafka + ClickHouse in monitors.distributed.test.ts.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import type { Deployment } from './pipeline-scenarios.ts';
import { MONITOR_SCENARIO_ENV, monitorApiScenario, monitorIdempotencyScenario, monitorPrivateListScenario, monitorScenario, versionN, type MonitorScenarioHooks } from './monitors-scenarios.ts';

let receiver: CallbackReceiver;
let deployment: EmbeddedDeployment;
let d: Deployment;
let hooks: MonitorScenarioHooks;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startEmbedded(receiver, {
    listEntries: versionN(), workers: true, monitor: true, jobChunkRows: 1000, env: { MONITOR_INTERVAL_MS: '200', ...MONITOR_SCENARIO_ENV },
  });
  d = { ...deployment, receiver };
  const monitor = deployment.monitor as { tick(): Promise<void> };
  hooks = {
    platform: deployment.platform,
    async walks(n) {
      for (let i = 0; i < n; i++) await monitor.tick();
    },
  };
}, 120_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
});

describe('monitors on the embedded default', () => {
  it('API: a monitor from an xlsx, get/list, a refused replacement changes nothing, a kept contact keeps its verdict, delete', async () => {
    await monitorApiScenario(d, hooks);
  }, 120_000);

  it('Idempotency-Key: the same key and body replay the first answer and create or replace nothing more; another body is 422 in da/en', async () => {
    await monitorIdempotencyScenario(d, hooks);
  }, 120_000);

  it('use_private_list: refused without a private list; a contact on it is blocked; a new private list version is a re-check that reports the release', async () => {
    await monitorPrivateListScenario(d, hooks);
  }, 180_000);

  it('10,000 contacts; a new version with 200 of them added and 100 removed → one job with exactly those 300 changes, one callback; the same version again → nothing', async () => {
    await monitorScenario(d, hooks);
  }, 300_000);
});
