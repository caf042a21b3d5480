/**
 * The API with file uploads on one in-memory database and the embedded event log (check jobs and
 * monitors), its spool and draft directories under a temp directory unless given, and what the
 * upload tests look at: every job, the files left in a directory, every event published.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { pipelineTopics } from '../../../infra/topics.ts';
import { createPipelineEvents } from '../../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import type { EventLog } from '../../../services/platform/log/port.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedMonitorStore } from '../../../services/platform/store/embedded/monitors.ts';
import type { JobStore } from '../../../services/platform/store/jobs-port.ts';
import { multipartBody, type FormPart } from '../../support/multipart.ts';
import { consumeEvents } from './event-capture.ts';
import { bearer, build } from './helper.ts';

const registry = createStaticSchemaRegistry();

export async function uploadsApi(options: { maxUploadBytes?: number; spoolDir?: string; draftDir?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'uploads-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const spoolDir = options.spoolDir ?? join(dir, 'spool');
  const draftDir = options.draftDir ?? join(dir, 'uploads');
  let jobs!: JobStore;
  let eventLog!: EventLog;
  const built = await build({
    withDeps: (db) => {
      jobs = createEmbeddedJobStore(db);
      eventLog = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20 });
      const events = createPipelineEvents({ log: eventLog, registry });
      return {
        events,
        checkJobs: {
          jobs, events, spoolDir, draftDir, chunkRows: 50, monitors: createEmbeddedMonitorStore(db),
          ...(options.maxUploadBytes ? { maxUploadBytes: options.maxUploadBytes } : {}),
        },
      };
    },
  });
  await eventLog.createTopics(pipelineTopics());
  const log = await consumeEvents(eventLog, registry);
  onTestFinished(async () => {
    await log.close();
    await eventLog.close();
  });
  const allJobs = () => jobs.listJobsDueForDeletion('9999-12-31T00:00:00.000Z', 10_000);
  const filesIn = (d: string) => (existsSync(d) ? readdirSync(d) : []);
  async function postForm(url: string, key: string, parts: FormPart[], headers: Record<string, string> = {}) {
    const { body, contentType } = await multipartBody(parts);
    return built.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': contentType, ...headers }, payload: body });
  }
  const upload = (key: string, parts: FormPart[], headers: Record<string, string> = {}) => postForm('/v2/check-jobs', key, parts, headers);
  return { ...built, jobs, log, spoolDir, draftDir, allJobs, filesIn, postForm, upload };
}
