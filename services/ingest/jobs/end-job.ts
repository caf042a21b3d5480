import type { JobStore } from '../../platform/store/jobs-port.ts';
import type { PipelineEvents } from '../../pipeline/events.ts';

/**
 * Ends a job that must not finish: a monitor's re-check whose monitor was deleted, a job whose
 * publisher died half-way (a monitor run, a connector's slot, an inbound file's job found stalled).
 * Purged like DELETE /v2/check-jobs/{id} (results never kept, no callback: a deleted job sends
 * none), its intake closed (the stalled-intake sweep leaves it alone) and `JobStateChanged{deleted}`
 * published. A job already done, failed or deleted is left as it is.
 */
export async function endUnfinishedJob(deps: { jobs: JobStore; events: Pick<PipelineEvents, 'publish'> }, jobId: string, at: string): Promise<void> {
  const job = await deps.jobs.getJobById(jobId);
  if (!job || job.status === 'done' || job.status === 'failed' || job.status === 'deleted') return;
  const deleted = await deps.jobs.purgeJob(jobId, at);
  await deps.jobs.touchIntake(jobId, { at, closed: true });
  if (!deleted) return;
  await deps.events.publish({
    type: 'JobStateChanged',
    value: {
      job_id: jobId, org_id: deleted.org_id, status: 'deleted', error: null, changed_at: at,
      processed_count: deleted.processed_count, finished_at: deleted.finished_at,
    },
  });
}
