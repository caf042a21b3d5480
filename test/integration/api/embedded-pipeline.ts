/**
 * build() with check jobs on the embedded job store and embedded event log of its one database
 * (topics created as at boot), and `log` consuming what the app publishes, as a downstream group
 * would. `checkJobsOf` gives the check-jobs dependencies of the test around those two; results
 * cursors are sealed with the database's key ring.
 */
import type { DatabaseSync } from 'node:sqlite';
import { onTestFinished } from 'vitest';
import { pipelineTopics } from '../../../infra/topics.ts';
import type { ApiDeps } from '../../../services/api/app.ts';
import { createPipelineEvents, type PipelineEvent } from '../../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import type { JobStore } from '../../../services/platform/store/jobs-port.ts';
import { consumeEvents, countingLog } from './event-capture.ts';
import { build, cursorSealOf, type BuildOptions } from './helper.ts';

const registry = createStaticSchemaRegistry();

type CheckJobsDeps = NonNullable<ApiDeps['checkJobs']>;

export async function buildWithEmbeddedPipeline(
  options: BuildOptions & { publishGate?: Promise<void>; moreDeps?: (db: DatabaseSync) => Partial<ApiDeps> },
  checkJobsOf: (parts: { db: DatabaseSync; jobs: JobStore; events: CheckJobsDeps['events'] }) => Omit<CheckJobsDeps, 'cursors'>,
) {
  let jobs!: JobStore;
  let eventLog!: ReturnType<typeof countingLog>;
  const built = await build({
    ...options,
    withDeps: (db) => {
      jobs = createEmbeddedJobStore(db);
      eventLog = countingLog(createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20 }));
      const pipeline = createPipelineEvents({ log: eventLog, registry });
      // Optionally hold every publish until the gate opens (a job still being created).
      const gate = options.publishGate;
      const events = gate ? { publish: async (e: PipelineEvent | PipelineEvent[]) => (await gate, pipeline.publish(e)) } : pipeline;
      return { events, checkJobs: { cursors: cursorSealOf(db), ...checkJobsOf({ db, jobs, events }) }, ...(options.moreDeps ? options.moreDeps(db) : {}) };
    },
  });
  await eventLog.createTopics(pipelineTopics());
  const log = await consumeEvents(eventLog, registry);
  onTestFinished(async () => {
    await log.close();
    await eventLog.close();
  });
  /** Every job not deleted (the store has no list call; this one sees all of them). */
  const allJobs = () => jobs.listJobsDueForDeletion('9999-12-31T00:00:00.000Z', 10_000);
  return { ...built, jobs, log, allJobs };
}
