import type { Logger } from '../platform/logger.ts';
import type { JobStore } from '../platform/store/jobs-port.ts';
import type { JobSerializer } from './job-serializer.ts';

/**
 * Fails jobs whose intake died (the API process killed while it was publishing the rows): the
 * record exists, `queued` or `running` on the rows that made it to the log, but RowsComplete never
 * came and never will. Without this the job would wait forever and the customer never hear.
 *
 * "Died" is measured from the intake's last sign of life (JobStore.touchIntake: at creation, then
 * at most every second while publishing), not from creation, so a large job still being
 * published is never failed; a body still being read has no record yet, so it cannot be either.
 * The job fails the way any other failure does (tracker.onFailed): status `failed`, error
 * `intake_interrupted`, finished_at, exact counts of the results stored so far, and one
 * `check_job.failed` callback. Its stored results stay, like those of any failed job: never
 * served (results answer 409 unless done), deleted by retention at delete_after or at once by
 * DELETE. Then the intake is closed, so the job is not looked at again.
 */
export const INTAKE_INTERRUPTED = 'intake_interrupted';

export interface StalledIntakeSweeper {
  /** One pass; returns how many jobs it failed. */
  sweep(): Promise<number>;
}

export interface StalledIntakeDeps {
  jobs: JobStore;
  serializer: JobSerializer;
  logger: Logger;
  now: () => Date;
  /** Silence after which an intake counts as dead (INTAKE_STALE_SECONDS). */
  staleMs: number;
  /** Fails the job with the error (job-tracker.ts onFailed: counts, callback, state event). */
  fail: (jobId: string, error: string) => Promise<void>;
  /** Jobs failed per pass at most. */
  batchSize?: number;
}

export function createStalledIntakeSweeper(deps: StalledIntakeDeps): StalledIntakeSweeper {
  const logger = deps.logger.child({ module: 'projection.intakes' });
  const batchSize = deps.batchSize ?? 500;
  return {
    async sweep() {
      const now = deps.now();
      const stalled = await deps.jobs.listStalledIntakes(new Date(now.getTime() - deps.staleMs).toISOString(), batchSize);
      let failed = 0;
      for (const job of stalled) {
        const after = await deps.serializer.run(job.id, async () => {
          await deps.fail(job.id, INTAKE_INTERRUPTED);
          return deps.jobs.getJobById(job.id);
        });
        await deps.jobs.touchIntake(job.id, { at: now.toISOString(), closed: true });
        if (after?.status === 'failed' && after.error === INTAKE_INTERRUPTED) {
          failed += 1;
          logger.warn({ job_id: job.id, org_id: job.org_id, rows: job.row_count, processed: after.processed_count }, 'job.intake_interrupted');
        }
      }
      return failed;
    },
  };
}
