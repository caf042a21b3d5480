/**
 * Spreadsheet and CSV uploads end to end on the distributed deployment: real Kafka and ClickHouse
 * (infra/local), the API in the test process, two matcher processes and a separate projection
 * process, on this run's own topic prefix and database. The scenarios of uploads.embedded.test.ts:
 * the drafts, the file cells on checks.rows and in the ClickHouse result rows, and the result file
 * read back from ClickHouse page by page. Fails, never skips, without the servers.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import type { Deployment } from './pipeline-scenarios.ts';
import { companyPhoneFileJob, companyPhoneTestJsonJob } from './company-phone-jobs-scenario.ts';
import { FIXTURES, makeUploadFixtures, upload, uploadRows, uploadToResultFile } from './uploads-scenarios.ts';

const { rows, levels } = uploadRows(61);
let receiver: CallbackReceiver;
let deployment: DistributedDeployment;
let d: Deployment;
let dir: string;
let fixtures: Map<string, string>;

beforeAll(async () => {
  dir = await scratchDir('uploads-e2e-dist');
  [receiver, fixtures] = await Promise.all([startCallbackReceiver(), makeUploadFixtures(dir, rows)]);
  deployment = await startDistributed(receiver, { matchers: 2, registers: true });
  d = { ...deployment, receiver };
}, 180_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('uploads on Kafka + ClickHouse: upload → draft → start → done → /file', () => {
  it.each(FIXTURES.map((f) => [f.label, f] as const))('%s', async (_, fixture) => {
    await uploadToResultFile(d, fixture, fixtures.get(fixture.name)!, rows, levels);
  }, 90_000);

  it('a spreadsheet job with company and phone checks: every §17 row in the preview, the results and the result file', async () => {
    await companyPhoneFileJob(d, dir);
  }, 90_000);

  it('a JSON job with company and phone checks and a test key gets the §3 fixed answers', async () => {
    await companyPhoneTestJsonJob(d);
  }, 60_000);

  it('a refused file leaves no job, no spool file and no draft file', async () => {
    const dataDir = deployment.config.DATA_DIR;
    const files = (sub: string) => (existsSync(join(dataDir, sub)) ? readdirSync(join(dataDir, sub)) : []);
    const jobs = () => deployment.platform.jobs.listJobsDueForDeletion('9999-12-31T00:00:00.000Z', 10_000);
    const before = { spool: files('spool'), uploads: files('uploads'), jobs: (await jobs()).length };
    const response = await upload(d, { bytes: Buffer.alloc(0), filename: 'kunder.csv' });
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', details: { reason: 'file_empty' } });
    expect(files('spool')).toEqual(before.spool);
    expect(files('uploads')).toEqual(before.uploads);
    expect(await jobs()).toHaveLength(before.jobs);
  });
});
