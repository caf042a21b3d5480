/**
 * Spreadsheet and CSV uploads end to end on the embedded default (API, matcher and projection
 * as npm start wires them, embedded stores and event log), over real HTTP, with files made by
 * LibreOffice headless and exceljs and CSV bytes as Excel writes them. The same scenarios run on
 * Kafka + ClickHouse in uploads.distributed.test.ts.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { keptLog } from '../support/kept-log.ts';
import type { Deployment } from './pipeline-scenarios.ts';
import { companyPhoneFileJob, companyPhoneTestJsonJob } from './company-phone-jobs-scenario.ts';
import { FIXTURES, makeUploadFixtures, upload, uploadRows, uploadToResultFile } from './uploads-scenarios.ts';

const { rows, levels } = uploadRows(61);
let receiver: CallbackReceiver;
let deployment: EmbeddedDeployment;
let d: Deployment;
let dir: string;
let fixtures: Map<string, string>;
// A refused upload's cause is logged, not answered: kept to be shown if an upload fails.
const log = keptLog(['api.file_refused']);

beforeAll(async () => {
  dir = await scratchDir('uploads-e2e');
  [receiver, fixtures] = await Promise.all([startCallbackReceiver(), makeUploadFixtures(dir, rows)]);
  deployment = await startEmbedded(receiver, { registers: true, logger: log.logger });
  d = { ...deployment, receiver };
}, 180_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('uploads on the embedded default: upload → draft → start → done → /file', () => {
  it.each(FIXTURES.map((f) => [f.label, f] as const))('%s', async (_, fixture) => {
    await uploadToResultFile(d, fixture, fixtures.get(fixture.name)!, rows, levels, log.lines);
  }, 60_000);

  it('a spreadsheet job with company and phone checks: every §17 row in the preview, the results and the result file', async () => {
    await companyPhoneFileJob(d, dir, log.lines);
  }, 90_000);

  it('a JSON job with company and phone checks and a test key gets the §3 fixed answers', async () => {
    await companyPhoneTestJsonJob(d);
  }, 60_000);

  it('a refused file leaves no job, no spool file and no draft file', async () => {
    const files = (sub: string) => (existsSync(join(deployment.dataDir, sub)) ? readdirSync(join(deployment.dataDir, sub)) : []);
    const jobs = () => deployment.platform.jobs.listJobsDueForDeletion('9999-12-31T00:00:00.000Z', 10_000);
    const before = { spool: files('spool'), uploads: files('uploads'), jobs: (await jobs()).length };
    const response = await upload(d, { bytes: Buffer.from('PK\u0003\u0004 cut off here'), filename: 'kunder.xlsx' });
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', details: { reason: 'file_corrupt' } });
    expect(files('spool')).toEqual(before.spool);
    expect(files('uploads')).toEqual(before.uploads);
    expect(await jobs()).toHaveLength(before.jobs);
  });
});
