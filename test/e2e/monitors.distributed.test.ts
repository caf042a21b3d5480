/**
 * Monitors end to end on Kafka + ClickHouse: the API in the test process, two matchers, the
 * projection and the monitor service as processes of their own (`node services/run-service.ts`),
 * on this run's topic prefix and database. The scenarios of monitors.embedded.test.ts, then the
 * monitor process killed -9 during a re-check and started again: the re-check completes exactly
 * once, with one callback. Fails, never skips, without the servers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorRecord } from '../../services/platform/store/monitors-port.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { seedListVersion } from '../support/pipeline.ts';
import { allResults, api, getJob, type Deployment } from './pipeline-scenarios.ts';
import {
  callbacksOf, contact, MONITOR_SCENARIO_ENV, entryOf, monitorApiScenario, monitorIdempotencyScenario, monitorPrivateListScenario, monitorScenario, strangers, versionN, waitForCallback, waitForMonitor,
  type MonitorScenarioHooks,
} from './monitors-scenarios.ts';

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;
let d: Deployment;
let monitor: ServiceProcess;
let hooks: MonitorScenarioHooks;

const MONITOR_ENV = { LOG_LEVEL: 'debug', MONITOR_INTERVAL_MS: '200' };
const walksDone = (p: ServiceProcess) => p.output().split('\n').filter((line) => line.includes('"monitor.walk_done"')).length;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startDistributed(receiver, { matchers: 2, listEntries: versionN(), jobChunkRows: 1000, env: { ...MONITOR_SCENARIO_ENV } });
  monitor = await deployment.spawnService('monitor', MONITOR_ENV);
  d = { ...deployment, receiver };
  hooks = {
    platform: deployment.platform,
    // The monitor process's own signal (a debug line per whole walk), never a guessed sleep.
    async walks(n) {
      const target = walksDone(monitor) + n + 1;
      const end = Date.now() + 60_000;
      while (walksDone(monitor) < target) {
        if (Date.now() > end) throw new Error(`the monitor process did not walk ${n} times:\n${monitor.output().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}, 240_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
}, 60_000);

describe('monitors on Kafka + ClickHouse, the monitor service as its own process', () => {
  it('API: a monitor from an xlsx, get/list, a refused replacement changes nothing, a kept contact keeps its verdict, delete', async () => {
    await monitorApiScenario(d, hooks);
  }, 180_000);

  it('Idempotency-Key: the same key and body replay the first answer and create or replace nothing more; another body is 422 in da/en', async () => {
    await monitorIdempotencyScenario(d, hooks);
  }, 180_000);

  it('use_private_list: refused without a private list; a contact on it is blocked; a new private list version is a re-check that reports the release', async () => {
    await monitorPrivateListScenario(d, hooks);
  }, 180_000);

  it('10,000 contacts; a new version with 200 of them added and 100 removed → one job with exactly those 300 changes, one callback; the same version again → nothing', async () => {
    await monitorScenario(d, hooks);
  }, 400_000);

  it('kill -9 of the monitor process during a re-check: after a restart the re-check completes exactly once, one callback', async () => {
    const size = 40_000;
    const base = 20_000;
    const people = Array.from({ length: size }, (_, i) => contact(base + i));
    const created = await api(d, 'POST', '/v2/monitors', { people, callback_url: receiver.url('kill') });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    const first = await waitForMonitor(d, id, (m) => m.last_check !== null, 240_000);

    // A new version: 150 of these contacts join the list. Kill the process as soon as the
    // re-check is under way (ideally while it still publishes the rows).
    const version = await seedListVersion(deployment.platform.lists, [...Array.from({ length: 150 }, (_, i) => entryOf(base + i)), ...strangers(300)]);
    let seen: MonitorRecord['run'] = null;
    let jobExisted = false;
    const end = Date.now() + 120_000;
    while (Date.now() < end) {
      const record = await deployment.platform.monitors.getMonitorById(id);
      if (record?.run && record.run.list_version_id === version.id) {
        seen = record.run;
        jobExisted = (await deployment.platform.jobs.getJobById(record.run.job_id)) !== null;
        if (seen.state === 'published' || jobExisted) break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(seen, 'the re-check never started').not.toBeNull();
    monitor.child.kill('SIGKILL');
    await monitor.exited;
    const interrupted = seen as NonNullable<MonitorRecord['run']>;

    monitor = await deployment.spawnService('monitor', MONITOR_ENV);
    const done = await waitForMonitor(d, id, (m) => m.last_check?.list_version_id === version.id, 240_000);
    const job = await getJob(d, done.last_check.job_id);
    expect(job).toMatchObject({ source: 'monitor', status: 'done', row_count: size, processed_count: size, blocked_count: 150 });
    expect(job.monitor).toEqual({ id, previous_job_id: first.last_check.job_id, changes: { newly_blocked: 150, released: 0, changed_level: 0 } });
    const { results } = await allResults(d, job.id);
    expect(results.filter((r) => r.change !== null).map((r) => r.id)).toEqual(Array.from({ length: 150 }, (_, i) => `c${base + i}`));

    // Exactly once: one completed re-check with one callback; a job cut off while publishing was
    // deleted (no results kept, no callback); a job fully published was the one that completed.
    await waitForCallback(d, 'kill', job.id);
    const recheckCallbacks = receiver.received('kill').filter((r) => JSON.parse(r.body).id !== first.last_check.job_id);
    expect(recheckCallbacks.filter((r) => r.answered < 300)).toHaveLength(1);
    if (interrupted.job_id !== job.id) {
      expect(interrupted.state).toBe('publishing');
      expect((await getJob(d, interrupted.job_id)).status).toBe('deleted');
      expect(callbacksOf(d, 'kill', interrupted.job_id)).toHaveLength(0);
    }
  }, 600_000);
});
