/**
 * An uploaded file lives no longer than its draft (docs/uploads.md "Who removes a draft file"):
 * once the job is no longer a draft (purged at its delete_after, failed, started) the next sweep
 * removes the file whatever its age; only a file without any record yet (a draft whose record is
 * being written) gets the grace. Real embedded job store, real files.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepDraftFiles } from '../../../services/ingest/index.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import { makeJob } from '../../contract/jobs-store.contract.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('draft files go with their draft, not ten minutes later', () => {
  it('purged, failed and started jobs lose their file at the next sweep; a draft and a fresh record-less file keep theirs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'draft-files-'));
    dirs.push(dir);
    const jobs = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const draft = makeJob({ status: 'draft' });
    const purged = makeJob({ status: 'draft' });
    const failed = makeJob({ status: 'draft' });
    for (const job of [draft, purged, failed]) await jobs.createJob(job);
    await jobs.purgeJob(purged.id, new Date().toISOString());
    await jobs.updateJob(failed.id, { status: 'failed', error: 'intake_interrupted' });
    const fileOf = (id: string) => join(dir, `draft-${id}.upload`);
    const recordless = '0f0f0f0f-0000-4000-8000-000000000000';
    const oldRecordless = '0e0e0e0e-0000-4000-8000-000000000000';
    for (const id of [draft.id, purged.id, failed.id, recordless, oldRecordless]) writeFileSync(fileOf(id), 'Fornavn;Efternavn\r\nÅse;Jensen\r\n');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(fileOf(oldRecordless), hourAgo, hourAgo);

    expect(await sweepDraftFiles(dir, jobs)).toBe(3);
    expect((await readdir(dir)).sort()).toEqual([`draft-${draft.id}.upload`, `draft-${recordless}.upload`].sort());
  });
});
