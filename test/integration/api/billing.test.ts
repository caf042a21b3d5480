import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { PipelineEvent } from '../../../services/pipeline/events.ts';
import { signCallback } from '../../../services/platform/webhook-signature.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import type { JobStore } from '../../../services/platform/store/jobs-port.ts';
import { multipartBody } from '../../support/multipart.ts';
import { bearer, build, cursorSealOf, errorOf, LIVE_ENTRIES, LIVE_VERSION_ID } from './helper.ts';

/**
 * Pay-per-list prices and the payment webhook on the API alone (docs/decisions.md §8); the flow through
 * the pipeline to done runs on both deployments in test/e2e/billing-scenario.ts. The payment
 * provider is a TEST DOUBLE: `providerSigned` signs as it would.
 */
const SECRET = 'billing-test-webhook-secret';
const PRICES = { list_small_cents: 49_500, list_large_cents: 249_500, custom_cents_per_1000_rows: 2_000 };
type Json = Record<string, any>;

async function setup() {
  const spoolDir = mkdtempSync(join(tmpdir(), 'billing-spool-'));
  onTestFinished(() => rmSync(spoolDir, { recursive: true, force: true }));
  let jobs!: JobStore;
  const published: PipelineEvent[] = [];
  const events = { publish: async (e: PipelineEvent | PipelineEvent[]) => { published.push(...(Array.isArray(e) ? e : [e])); } };
  const built = await build({
    liveEntries: LIVE_ENTRIES,
    withDeps: (db) => {
      jobs = createEmbeddedJobStore(db);
      return { events, checkJobs: { jobs, events, spoolDir, prices: PRICES, paymentWebhookSecret: SECRET, cursors: cursorSealOf(db) } };
    },
  });
  const stateEvents = () => published.filter((e) => e.type === 'JobStateChanged').map((e) => e.value as Json);
  return { ...built, jobs, stateEvents };
}

function ndjsonBody(lines: number): string {
  let text = '';
  for (let i = 0; i < lines; i++) text += `{"id":"${i}","name":"A B","address":"?"}\n`;
  return text;
}

function providerSigned(body: object, options: { secret?: string; at?: number } = {}) {
  const payload = JSON.stringify(body);
  return {
    payload,
    headers: {
      'content-type': 'application/json',
      'payment-signature': signCallback(payload, options.secret ?? SECRET, options.at ?? Math.floor(Date.now() / 1000)),
    },
  };
}

const paymentEvent = (id: string, jobId: string, amount = 49_500, currency = 'DKK') => ({
  id, type: 'payment.succeeded', data: { job_id: jobId, amount_cents: amount, currency },
});

describe('pay-per-list jobs (docs/decisions.md §8)', () => {
  it('a draft shows its price and the list version its preview was checked against before /start', async () => {
    const { app, payPerList, orgA } = await setup();
    const csv = Buffer.from('Fornavn,Efternavn,Adresse\r\nSøren,Kjær,"Vestergade 12, 2. tv, 8000 Aarhus C"\r\nÅse,Jensen,"Østergade 1, 8000 Aarhus C"\r\n');
    const upload = async (key: string) => {
      const { body, contentType } = await multipartBody([{ name: 'file', value: { bytes: csv, filename: 'kunder.csv' } }]);
      return app.inject({ method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(key), 'content-type': contentType }, payload: body });
    };
    const paid = await upload(payPerList.liveKey);
    expect(paid.statusCode, paid.body).toBe(202);
    expect(paid.json()).toMatchObject({ status: 'draft', price: { product: 'list_small', amount_cents: 49_500, currency: 'DKK' }, list_version: { id: LIVE_VERSION_ID } });
    // The verdict is what the price pays for (docs/uploads.md "Previews of pay-per-list drafts").
    expect(paid.json().preview[0].result).toMatchObject({ status: 'manual', match: { level: null } });
    const annual = await upload(orgA.liveKey);
    expect(annual.json()).toMatchObject({ status: 'draft', price: null, list_version: { id: LIVE_VERSION_ID } });
    expect(annual.json().preview[0].result.status).toBe('blocked'); // checked against that version
  });

  it('are priced by row count from configuration: 500, 50,000 and 500,000 rows', async () => {
    const { app, payPerList } = await setup();
    const expected: Array<[number, Json]> = [
      [500, { product: 'list_small', amount_cents: 49_500, currency: 'DKK' }],
      [50_000, { product: 'list_large', amount_cents: 249_500, currency: 'DKK' }],
      [500_000, { product: 'custom', amount_cents: 249_500 + 400 * 2_000, currency: 'DKK' }],
    ];
    for (const [rows, price] of expected) {
      const response = await app.inject({
        method: 'POST', url: '/v2/check-jobs', payload: ndjsonBody(rows),
        headers: { ...bearer(payPerList.liveKey), 'content-type': 'application/x-ndjson' },
      });
      expect(response.statusCode, response.body).toBe(202);
      expect(response.json()).toMatchObject({ status: 'awaiting_payment', row_count: rows, price });
    }
  }, 120_000);

  it('annual organisations and test keys are never priced', async () => {
    const { app, orgA, payPerList } = await setup();
    for (const key of [orgA.liveKey, payPerList.testKey]) {
      const response = await app.inject({
        method: 'POST', url: '/v2/check-jobs', payload: { people: [{ name: 'A B', address: '?' }] }, headers: bearer(key),
      });
      expect(response.json()).toMatchObject({ status: 'queued', price: null });
    }
  });
});

describe('POST /v2/payments/webhook', () => {
  async function awaitingJob() {
    const built = await setup();
    const response = await built.app.inject({
      method: 'POST', url: '/v2/check-jobs', payload: { people: [{ name: 'A B', address: '?' }] }, headers: bearer(built.payPerList.liveKey),
    });
    return { ...built, job: response.json<Json>() };
  }

  it('a signed event publishes one payment (JobStateChanged queued); the same event id again replays it', async () => {
    const { app, job, stateEvents } = await awaitingJob();
    const { payload, headers } = providerSigned(paymentEvent('evt_1', job.id));
    const first = await app.inject({ method: 'POST', url: '/v2/payments/webhook', payload, headers });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true, job_id: job.id, outcome: 'recorded' });
    expect(stateEvents()).toEqual([expect.objectContaining({ job_id: job.id, status: 'queued', error: null })]);
    const replay = await app.inject({ method: 'POST', url: '/v2/payments/webhook', payload, headers });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(stateEvents()).toHaveLength(1);
  });

  it('refuses forged, unsigned, stale and malformed events, wrong amounts and unknown jobs, publishing nothing', async () => {
    const { app, job, jobs, stateEvents, orgA } = await awaitingJob();
    const cases: Array<{ name: string; payload: string; headers: Record<string, string>; status: number; reason?: string }> = [];
    const forged = providerSigned(paymentEvent('evt_f', job.id), { secret: 'someone-else-secret' });
    cases.push({ name: 'forged', ...forged, status: 401, reason: 'signature_invalid' });
    cases.push({ name: 'unsigned', payload: forged.payload, headers: { 'content-type': 'application/json' }, status: 401, reason: 'signature_invalid' });
    const stale = providerSigned(paymentEvent('evt_s', job.id), { at: Math.floor(Date.now() / 1000) - 900 });
    cases.push({ name: 'stale', ...stale, status: 401, reason: 'timestamp_out_of_tolerance' });
    const future = providerSigned(paymentEvent('evt_u', job.id), { at: Math.floor(Date.now() / 1000) + 900 });
    cases.push({ name: 'future', ...future, status: 401, reason: 'timestamp_out_of_tolerance' });
    cases.push({ name: 'amount', ...providerSigned(paymentEvent('evt_a', job.id, 49_499)), status: 422, reason: 'amount_mismatch' });
    cases.push({ name: 'currency', ...providerSigned(paymentEvent('evt_c', job.id, 49_500, 'EUR')), status: 422, reason: 'amount_mismatch' });
    cases.push({ name: 'unknown job', ...providerSigned(paymentEvent('evt_n', '00000000-0000-4000-8000-00000000abcd')), status: 422, reason: 'not_found' });
    const annual = await app.inject({ method: 'POST', url: '/v2/check-jobs', payload: { people: [{ name: 'A B', address: '?' }] }, headers: bearer(orgA.liveKey) });
    cases.push({ name: 'not payable', ...providerSigned(paymentEvent('evt_p', annual.json().id)), status: 422, reason: 'not_payable' });
    const badShape = providerSigned({ id: 'evt_x', type: 'payment.refunded', data: {} });
    cases.push({ name: 'schema', ...badShape, status: 422 });
    const before = stateEvents().length;
    for (const c of cases) {
      const response = await app.inject({ method: 'POST', url: '/v2/payments/webhook', payload: c.payload, headers: { ...c.headers, 'accept-language': 'en' } });
      expect(response.statusCode, c.name).toBe(c.status);
      if (c.reason) expect(errorOf(response).details, c.name).toEqual({ reason: c.reason });
      expect(errorOf(response).message, c.name).toMatch(/[A-Za-z]/);
    }
    expect(stateEvents()).toHaveLength(before);
    expect((await jobs.getJobById(job.id))?.status).toBe('awaiting_payment');
    const da = await app.inject({ method: 'POST', url: '/v2/payments/webhook', payload: forged.payload, headers: forged.headers });
    expect(errorOf(da).message).toMatch(/Signaturen/);
  });
});
