/**
 * One check, every channel (docs/addresses.md "One check, every channel"), written once against a
 * running deployment over real HTTP and run by one-check.embedded.test.ts and
 * one-check.distributed.test.ts: the corpus of test/support/one-check-corpus.ts goes through the
 * synchronous call and through every other channel, and every result is compared field for field
 * with the synchronous call's, first without an address register, then after one is activated
 * while the deployment runs (its matchers were started before and never refresh anything).
 *
 * Channels: JSON and NDJSON check jobs; an xlsx upload (exceljs), its draft's preview and the
 * started job; a monitor's first check, and the re-check the register's activation makes of a
 * monitor checked before; a job through each inbound channel the deployment runs
 * (`hooks.inbound`: SFTP, email, connector); sole proprietors' owners (POST /v2/company-checks and a job with
 * check_companies, against the owner checked by POST /v2/checks); phone-found persons (POST
 * /v2/phone-checks and a job with check_phones).
 */
import { readFile } from 'node:fs/promises';
import type SftpClient from 'ssh2-sftp-client';
import type { InboundClaim } from '../../services/platform/store/inbound-port.ts';
import type { ExportServer } from '../support/connector-server.ts';
import { sendMail, type MailUser } from '../support/mail.ts';
import { dropFile } from '../support/sftp.ts';
import { addConnector, waitForStatus } from './connector-scenario.ts';
import { expect } from 'vitest';
import type { Platform } from '../../services/platform/open-platform.ts';
import { makeSpreadsheets } from '../support/files/spreadsheets.ts';
import {
  CORPUS_COMPANIES, CORPUS_COMPANY_ROWS, CORPUS_PEOPLE, CORPUS_PHONE_ROWS, importCorpusRegister, REGISTER_DEPENDENT,
} from '../support/one-check-corpus.ts';
import { waitForMonitor } from './monitors-scenarios.ts';
import { allResults, api, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';
import { multipartBody } from '../support/multipart.ts';

type Json = Record<string, any>;

export interface OneCheckHooks {
  platform: Platform;
  /** Scratch directory for the spreadsheet. */
  dir: string;
  /**
   * The inbound channels the deployment runs (SFTP drop folder, email, connector): each takes a
   * spreadsheet and resolves with its job's id once the channel made the job.
   */
  inbound: InboundChannel[];
  /** What the services logged that explains a failure (test/support/kept-log.ts), where known. */
  serverLog?: () => string;
}

export interface InboundChannel {
  name: string;
  run(path: string, filename: string): Promise<string>;
}

const HEADER = ['Kundenr.', 'Navn', 'Adresse', 'Postnr.', 'By'];
const PERSON_COLUMNS = ['id', 'name', 'address', 'postal_code', 'city'] as const;

/** JSON as the API sends it, so results decoded from the event log and stored compare as the client sees them. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

async function post(d: Deployment, path: string, body: unknown): Promise<Json> {
  const response = await api(d, 'POST', path, body);
  expect(response.status, response.text).toBe(path === '/v2/monitors' ? 201 : path === '/v2/check-jobs' ? 202 : 200);
  return response.json;
}

/** A JSON check job's results once done, in input order. */
async function jsonJob(d: Deployment, people: object[], options?: object): Promise<Json[]> {
  const created = await post(d, '/v2/check-jobs', { people, ...(options ? { options } : {}) });
  return doneResults(d, created.id);
}

async function doneResults(d: Deployment, id: string): Promise<Json[]> {
  const job = await waitForJob(d, id, isFinished, 90_000);
  expect(job.status, JSON.stringify(job.error)).toBe('done');
  return (await allResults(d, id)).results;
}

/** Every result equal to the synchronous call's, field for field, naming the channel and the row on a difference. */
function expectSame(channel: string, got: Json[], reference: Json[]): void {
  expect(got.length, channel).toBe(reference.length);
  for (const [i, ref] of reference.entries()) expect(plain(got[i]), `${channel}, row ${ref.id ?? i}`).toEqual(plain(ref));
}

/**
 * Sends the corpus through every channel and compares each answer with the synchronous call's.
 * Returns the synchronous results, for the caller's own checks of what the register changed.
 */
export async function everyChannelAgrees(
  d: Deployment, hooks: OneCheckHooks, label: string, earlier?: EarlierMonitor,
): Promise<{ reference: Json[]; monitor: EarlierMonitor }> {
  const sync = await post(d, '/v2/checks', { people: CORPUS_PEOPLE });
  expect(sync.list_version.id).toBe(d.listVersionId);
  const reference: Json[] = sync.results;

  expectSame('JSON job', await jsonJob(d, CORPUS_PEOPLE), reference);

  const ndjson = await fetch(new URL('/v2/check-jobs', d.baseUrl), {
    method: 'POST',
    headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/x-ndjson' },
    body: CORPUS_PEOPLE.map((p) => JSON.stringify(p)).join('\n'),
  });
  const ndjsonJob = await ndjson.json() as Json;
  expect(ndjson.status, JSON.stringify(ndjsonJob)).toBe(202);
  expectSame('NDJSON job', await doneResults(d, ndjsonJob.id), reference);

  // An xlsx written by exceljs: the draft's preview, then the started job.
  const rows = [HEADER, ...CORPUS_PEOPLE.map((p) => PERSON_COLUMNS.map((c) => p[c] ?? null))];
  const [xlsx] = await makeSpreadsheets(hooks.dir, [{ name: `kunder-${label}.xlsx`, rows, via: 'exceljs' }]);
  const draft = await uploadFile(d, await readFile(xlsx), 'kunder.xlsx');
  expect(draft.status, `${JSON.stringify(draft.json)}\n${hooks.serverLog?.() ?? ''}`).toBe(202);
  expect(draft.json.column_mapping).toMatchObject({ external_id: 'Kundenr.', name: 'Navn', address: 'Adresse', postal_code: 'Postnr.', city: 'By' });
  expectSame('upload draft preview', draft.json.preview.map((p: Json) => p.result), reference);
  const started = await api(d, 'POST', `/v2/check-jobs/${draft.json.id}/start`, {});
  expect(started.status, `${started.text}\n${hooks.serverLog?.() ?? ''}`).toBe(202);
  expectSame('upload job', await doneResults(d, draft.json.id), reference);

  for (const channel of hooks.inbound) {
    const jobId = await channel.run(xlsx, `kunder-${label}.xlsx`);
    const job = await hooks.platform.jobs.getJobById(jobId);
    // A claim delivered without a job is a refused file (its code is in the log: sftp.file_refused).
    expect(job?.org_id, `${channel.name}: the job of its claim\n${hooks.serverLog?.() ?? ''}`).toBeDefined();
    expectSame(`${channel.name} job`, await doneResults(d, jobId), reference);
  }

  // A monitor's first check: its results carry `change` besides the check's fields.
  const monitor = await post(d, '/v2/monitors', { external_ref: `one-check-${label}`, people: CORPUS_PEOPLE });
  const checked = await waitForMonitor(d, monitor.id, (m) => m.last_check !== null);
  expectSame('monitor check', await monitorResults(d, checked.last_check.job_id), reference);
  // A monitor checked before the register was activated is checked again with it.
  if (earlier) {
    const again = await waitForMonitor(d, earlier.id, (m) => m.last_check !== null && m.last_check.job_id !== earlier.jobId);
    expectSame('monitor re-check', await monitorResults(d, again.last_check.job_id), reference);
  }

  // Phone-found persons: the job's row is the phone check's answer, whole.
  const phones = await post(d, '/v2/phone-checks', { phones: CORPUS_PHONE_ROWS });
  expect(phones.list_version.id).toBe(d.listVersionId);
  expectSame('phone job', await jsonJob(d, CORPUS_PHONE_ROWS, { check_people: false, check_phones: true }), phones.results);

  // Sole proprietors: the company's answer is the company check's; the row's match and address
  // are its owner's, checked as a person by the synchronous call.
  const companies = await post(d, '/v2/company-checks', { companies: CORPUS_COMPANY_ROWS });
  const companyJob = await jsonJob(d, CORPUS_COMPANY_ROWS, { check_people: false, check_companies: true });
  expectSame('company job (company)', companyJob.map((r) => r.company), companies.results);
  const owners = CORPUS_COMPANIES.flatMap((c, i) => (c.owner ? [{ row: i, person: { id: CORPUS_COMPANY_ROWS[i].id, ...c.owner } }] : []));
  const ownerChecks = await post(d, '/v2/checks', { people: owners.map((o) => o.person) });
  const personPart = (r: Json) => ({ id: r.id, match: r.match, level: r.level, address: r.address, stop_level: r.stop_level });
  expectSame('company job (owner)', owners.map((o) => personPart(companyJob[o.row])), ownerChecks.results.map(personPart));
  return { reference, monitor: { id: monitor.id, jobId: checked.last_check.job_id } };
}

/** A monitor made in an earlier round and the job of its last check. */
interface EarlierMonitor {
  id: string;
  jobId: string;
}

/** A monitor check's results without `change` (what the monitor adds to a check's fields). */
async function monitorResults(d: Deployment, jobId: string): Promise<Json[]> {
  return (await doneResults(d, jobId)).map(({ change: _change, ...result }) => result);
}

/** Activates the corpus's register and waits until the synchronous call answers with it (the API's own refresh). */
export async function activateRegister(d: Deployment, hooks: OneCheckHooks): Promise<void> {
  await importCorpusRegister(hooks.platform.addresses);
  const probe = CORPUS_PEOPLE.find((p) => p.id === REGISTER_DEPENDENT[0]);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { json } = await api(d, 'POST', '/v2/checks', { people: [probe] });
    if (json.results?.[0]?.address?.confidence === 'exact') return;
    if (Date.now() > deadline) throw new Error(`the API did not take the activated register within 60 s: ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The register changes these people's answer: level 5 with it, never without (so the comparison can fail). */
export function expectRegisterMatters(reference: Json[], withRegister: boolean): void {
  for (const id of REGISTER_DEPENDENT) {
    const result = reference.find((r) => r.id === id) as Json;
    if (withRegister) expect([id, result.match.level, result.address.confidence]).toEqual([id, 5, 'exact']);
    else expect(result.match.level, id).not.toBe(5);
  }
}

/** The whole scenario: no register, then a register activated while everything runs. */
export async function oneCheckEveryChannel(d: Deployment, hooks: OneCheckHooks): Promise<void> {
  const text = await everyChannelAgrees(d, hooks, 'text');
  expectRegisterMatters(text.reference, false);
  await activateRegister(d, hooks);
  expectRegisterMatters((await everyChannelAgrees(d, hooks, 'register', text.monitor)).reference, true);
}

/** An upload in the synchronous call's language (no Accept-Language): labels compare as they are. */
async function uploadFile(d: Deployment, bytes: Uint8Array, filename: string): Promise<{ status: number; json: Json }> {
  const { body, contentType } = await multipartBody([{ name: 'file', value: { bytes, filename } }]);
  const response = await fetch(new URL('/v2/check-jobs', d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': contentType }, body,
  });
  return { status: response.status, json: await response.json() as Json };
}

/** Waits (on the channel's own claim state) for the first claim not in `before` to be delivered: its id is the job's. */
async function nextDeliveredClaim(platform: Platform, of: (c: InboundClaim) => boolean, before: Set<string>, what: string): Promise<string> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const claims = (await platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 1000)).filter(of);
    const delivered = claims.find((c) => !before.has(c.id) && c.state === 'delivered');
    if (delivered) return delivered.id;
    if (Date.now() > deadline) throw new Error(`no ${what} claim was delivered within 90 s: ${JSON.stringify(claims.map((c) => c.state))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function claimIds(platform: Platform, of: (c: InboundClaim) => boolean): Promise<Set<string>> {
  return new Set((await platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 1000)).filter(of).map((c) => c.id));
}

/** An SFTP drop folder: the customer puts the file into inbox/; the job is the folder's next delivered claim (the result is in outbox/). */
export function sftpChannel(platform: Platform, folderId: string, customer: SftpClient): InboundChannel {
  const of = (c: InboundClaim) => c.channel === 'sftp' && c.source_ref === folderId;
  return {
    name: 'SFTP drop folder',
    async run(path, filename) {
      const before = await claimIds(platform, of);
      // Written whole, then renamed (test/support/sftp.ts dropFile): never claimed half-written.
      await dropFile(customer, await readFile(path), `/inbox/${filename}`);
      return nextDeliveredClaim(platform, of, before, 'SFTP');
    },
  };
}

/** The ingest mailbox: the customer mails the file through Postfix; the job is the next delivered attachment claim (the reply is sent). */
export function emailChannel(platform: Platform, customer: MailUser, ingest: MailUser): InboundChannel {
  // One claim per message and one per attachment; the attachment's claim id is its job's.
  const of = (c: InboundClaim) => c.channel === 'email' && c.item.startsWith('attachment:');
  return {
    name: 'email',
    async run(path, filename) {
      const before = await claimIds(platform, of);
      await sendMail(customer.address, ingest.address, 'Tjek af liste', [{ filename, content: await readFile(path) }]);
      return nextDeliveredClaim(platform, of, before, 'email');
    },
  };
}

/** A connector pulling the file from the customer's HTTPS export once a day: the job of its first slot. */
export function connectorChannel(platform: Platform, secretKey: string, orgId: string, server: ExportServer): InboundChannel {
  return {
    name: 'connector',
    async run(path, filename) {
      const url = server.serve(filename, await readFile(path), XLSX_TYPE);
      const id = await addConnector(platform, secretKey, orgId, url, { every: '86400', locale: 'da' });
      const status = await waitForStatus(platform, id, (s) => s.last_job_id !== null, 'a first job');
      return status.last_job_id as string;
    },
  };
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
