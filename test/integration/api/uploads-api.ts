/**
 * The API with file uploads on one in-memory database and the embedded event log (check jobs and
 * monitors), its spool and draft directories under a temp directory unless given, and what the
 * upload tests look at: every job, the files left in a directory, every event published.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { createEmbeddedMonitorStore } from '../../../services/platform/store/embedded/monitors.ts';
import { createEmbeddedSavedMappingStore } from '../../../services/platform/store/embedded/saved-mappings.ts';
import { multipartBody, type FormPart } from '../../support/multipart.ts';
import { buildWithEmbeddedPipeline } from './embedded-pipeline.ts';
import { bearer, type BuildOptions } from './helper.ts';

export async function uploadsApi(options: { maxUploadBytes?: number; spoolDir?: string; draftDir?: string; savedMappings?: boolean } & Pick<BuildOptions, 'config' | 'clock' | 'liveEntries'> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'uploads-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const spoolDir = options.spoolDir ?? join(dir, 'spool');
  const draftDir = options.draftDir ?? join(dir, 'uploads');
  const built = await buildWithEmbeddedPipeline({
    ...(options.config ? { config: options.config } : {}), ...(options.clock ? { clock: options.clock } : {}),
    ...(options.liveEntries ? { liveEntries: options.liveEntries } : {}),
    ...(options.savedMappings ? { moreDeps: (db) => ({ savedMappings: createEmbeddedSavedMappingStore(db) }) } : {}),
  }, ({ db, jobs, events }) => ({
    jobs, events, spoolDir, draftDir, chunkRows: 50, monitors: createEmbeddedMonitorStore(db),
    ...(options.maxUploadBytes ? { maxUploadBytes: options.maxUploadBytes } : {}),
  }));
  const filesIn = (d: string) => (existsSync(d) ? readdirSync(d) : []);
  async function postForm(url: string, key: string, parts: FormPart[], headers: Record<string, string> = {}) {
    const { body, contentType } = await multipartBody(parts);
    return built.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': contentType, ...headers }, payload: body });
  }
  const upload = (key: string, parts: FormPart[], headers: Record<string, string> = {}) => postForm('/v2/check-jobs', key, parts, headers);
  return { ...built, spoolDir, draftDir, filesIn, postForm, upload };
}
