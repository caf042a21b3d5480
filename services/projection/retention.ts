import type { Logger } from '../platform/logger.ts';
import type { JobStore } from '../platform/store/jobs-port.ts';
import { utcDay } from '../platform/store/job-results.ts';
import type { JobStateChangedEvent } from '../pipeline/events.ts';
import type { JobSerializer } from './job-serializer.ts';

/**
 * The retention sweep (docs/decisions.md §10): at `delete_after` a job's personal data (result rows,
 * preview) is deleted and the job becomes `deleted`; counts, level counts, list version,
 * certificate and callback outcome stay. Whole days of results go first (dropResultsDueBefore:
 * cheap partition drops on ClickHouse), then each due job is purged. Topics holding personal data
 * (checks.rows, checks.results) expire on their own short retention.
 */
export interface RetentionSweeper {
  /** One pass; returns how many jobs were purged. */
  sweep(): Promise<number>;
}

export interface RetentionDeps {
  jobs: JobStore;
  serializer: JobSerializer;
  logger: Logger;
  now: () => Date;
  onDeleted: (event: JobStateChangedEvent) => Promise<void>;
  /** Jobs purged per pass at most. */
  batchSize?: number;
}

export function createRetentionSweeper(deps: RetentionDeps): RetentionSweeper {
  const logger = deps.logger.child({ module: 'projection.retention' });
  const batchSize = deps.batchSize ?? 500;
  return {
    async sweep() {
      const now = deps.now();
      const at = now.toISOString();
      await deps.jobs.dropResultsDueBefore(utcDay(at));
      const due = await deps.jobs.listJobsDueForDeletion(at, batchSize);
      let purged = 0;
      for (const job of due) {
        const done = await deps.serializer.run(job.id, () => deps.jobs.purgeJob(job.id, at));
        if (!done) continue;
        purged += 1;
        await deps.onDeleted({
          job_id: done.id, org_id: done.org_id, status: 'deleted', error: null, changed_at: at,
          processed_count: done.processed_count, finished_at: done.finished_at,
        });
      }
      if (purged > 0) logger.info({ purged }, 'retention.purged');
      return purged;
    },
  };
}
