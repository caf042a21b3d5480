/**
 * The job the bench drivers measure (page-driver.ts, file-driver.ts): `rows` people, 20 % of them
 * on the list, as one JSON body; a deployment started with a 50,000-entry list and that job run
 * to `done` through the API.
 */
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startDistributed, startEmbedded, type DistributedDeployment, type EmbeddedDeployment } from '../support/deployments.ts';

const SEED = 11;

export function driverJobBody(rows: number): string {
  const members = [...generateListEntries(Math.round(rows * 0.2), SEED)].map(({ previous: _previous, ...person }, i) => ({ id: `r${i}`, ...person }));
  const others = generatePeople(rows - members.length, `${SEED}-0`).map((p, i) => ({ ...p, id: `r${members.length + i}` }));
  return JSON.stringify({ people: [...members, ...others] });
}

/** The deployment and the id of its job, done (30 minutes at most). The caller stops the deployment. */
export async function startWithDoneJob(
  deployment: string, body: string,
): Promise<{ d: EmbeddedDeployment | DistributedDeployment; id: string }> {
  const listEntries = [...generateListEntries(50_000, SEED)];
  const d = deployment === 'embedded'
    ? await startEmbedded(null, { listEntries, jobChunkRows: 2000, workers: true })
    : await startDistributed(null, { matchers: 1, listEntries, jobChunkRows: 2000, env: { PROJECTION_COUNT_INTERVAL_MS: '1000' } });
  try {
    const auth = { Authorization: `Bearer ${d.liveKey}` };
    const created = await fetch(new URL('/v2/check-jobs', d.baseUrl), { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body });
    const { id } = (await created.json()) as { id: string };
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      const job = (await (await fetch(new URL(`/v2/check-jobs/${id}`, d.baseUrl), { headers: auth })).json()) as { status: string };
      if (job.status === 'done') return { d, id };
      if (job.status === 'failed' || Date.now() > deadline) throw new Error(`job ${job.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (error) {
    await d.stop();
    throw error;
  }
}
