/**
 * A suspended organisation's monitors stop and cost nothing (docs/monitors.md "Suspended
 * organisations"): the monitor service's walk starts no re-check job for them and records no
 * usage; once the organisation is restored, the next walk checks them. npm start's wiring, the
 * monitor service's own walk (tick) as the signal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import { api, type Deployment } from './pipeline-scenarios.ts';
import { orgIdOfKey } from './private-list-scenario.ts';

describe('monitors of a suspended organisation stand still and are not billed', () => {
  let deployment: EmbeddedDeployment;
  beforeAll(async () => {
    deployment = await startEmbedded(null, { env: { MONITOR_INTERVAL_MS: '3600000' }, monitor: true });
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  it('no job and no usage while suspended; checked again after restoring', async () => {
    const d = deployment as unknown as Deployment;
    const created = await api(d, 'POST', '/v2/monitors', { people: [{ id: 'c1', name: 'Karen Kontaktsen', address: 'Overvågningsvej 1, 8000 Aarhus C' }] });
    expect(created.status, created.text).toBe(201);
    const orgId = await orgIdOfKey(deployment.platform, deployment.liveKey);
    await deployment.platform.accounts.updateOrganisation(orgId, { suspended: true });

    await deployment.monitor!.tick();
    const still = await deployment.platform.monitors.getMonitorById(created.json.id as string);
    expect(still?.run ?? null).toBeNull();
    expect(still?.checked ?? null).toBeNull();
    expect((await deployment.platform.jobs.listRecentJobs({ org_id: orgId, mode: 'live' }, 100)).filter((j) => j.source === 'monitor')).toEqual([]);

    await deployment.platform.accounts.updateOrganisation(orgId, { suspended: false });
    await deployment.monitor!.tick();
    const restored = await deployment.platform.monitors.getMonitorById(created.json.id as string);
    expect(restored?.run?.job_id ?? restored?.checked?.job_id).toBeTruthy();
    expect((await deployment.platform.jobs.listRecentJobs({ org_id: orgId, mode: 'live' }, 100)).filter((j) => j.source === 'monitor')).toHaveLength(1);
  }, 120_000);
});
