/**
 * A monitor past its delete_after is only deleted, never checked again (docs/monitors.md
 * "Retention"): the monitor service's walk leaves it alone and its retention sweep
 * (`monitor-expired`, on the process's retention timer: services/platform/retention.ts) deletes
 * it. npm start's wiring; the walk (tick) and the monitor's own record are the signals. Here
 * RETENTION_SWEEP_SECONDS is 0 (no timer), so what a walk does is seen apart from the sweep; the
 * sweep's deletion is the canaries' (canary-scenario.ts monitorCanaryScenario 'retention').
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import { api, type Deployment } from './pipeline-scenarios.ts';
import { orgIdOfKey } from './private-list-scenario.ts';

describe('a monitor past its delete_after', () => {
  let deployment: EmbeddedDeployment;
  beforeAll(async () => {
    deployment = await startEmbedded(null, { env: { MONITOR_INTERVAL_MS: '3600000' }, monitor: true });
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  it('starts no check at a walk, while a monitor within its retention is checked by the same walk', async () => {
    const d = deployment as unknown as Deployment;
    const person = (name: string) => [{ id: name, name: `${name} Kontaktsen`, address: 'Overvågningsvej 1, 8000 Aarhus C' }];
    const expired = await api(d, 'POST', '/v2/monitors', { people: person('Karen') });
    const current = await api(d, 'POST', '/v2/monitors', { people: person('Kurt') });
    expect([expired.status, current.status], expired.text).toEqual([201, 201]);
    const expiredId = expired.json.id as string;
    // Its retention ended an hour ago (time passing, written through the store).
    await deployment.platform.monitors.updateMonitor(expiredId, { delete_after: new Date(Date.now() - 3_600_000).toISOString() });

    await deployment.monitor!.tick();
    const left = await deployment.platform.monitors.getMonitorById(expiredId);
    expect(left?.run ?? null).toBeNull();
    expect(left?.checked ?? null).toBeNull();
    const checked = await deployment.platform.monitors.getMonitorById(current.json.id as string);
    expect(checked?.run?.job_id ?? checked?.checked?.job_id).toBeTruthy();
    const orgId = await orgIdOfKey(deployment.platform, deployment.liveKey);
    const monitorJobs = (await deployment.platform.jobs.listRecentJobs({ org_id: orgId, mode: 'live' }, 100)).filter((j) => j.source === 'monitor');
    expect(monitorJobs).toHaveLength(1);
  }, 120_000);
});
