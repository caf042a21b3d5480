import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { importPrivateList, orgIdOfKey, privateListJob, privateListMissing, privateListMonitor, privateListSyncCheck } from './private-list-scenario.ts';

/**
 * Private lists on Kafka + ClickHouse: the private list lives in ClickHouse, the matchers (child
 * processes) build its index from there by the version id the job's chunks carry (RowsChunk v3).
 */
describe('private lists (distributed deployment)', () => {
  let d: DistributedDeployment & { receiver: CallbackReceiver };
  let syncResults: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const receiver = await startCallbackReceiver();
    d = Object.assign(await startDistributed(receiver, { matchers: 1 }), { receiver });
    await importPrivateList(d.platform, await orgIdOfKey(d.platform, d.liveKey));
    await d.spawnService('monitor', { MONITOR_INTERVAL_MS: '200' });
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await d?.receiver.close();
  });

  it('POST /v2/checks with use_private_list blocks a person on the private list with the reason of the match', async () => {
    syncResults = await privateListSyncCheck(d);
  });

  it('a job with options.use_private_list gets the same answers through the matchers', async () => {
    await privateListJob(d, syncResults);
  }, 90_000);

  it('a monitor with use_private_list gets the same answers in its re-check job', async () => {
    await privateListMonitor(d);
  }, 120_000);

  it('an organisation without an active private list gets 422 at use_private_list and nothing is created', async () => {
    await privateListMissing(d, d.platform);
  });
});
