/**
 * docs/decisions.md §8 billing end to end, written once and run on both deployments: a pay-per-list
 * organisation's job waits in awaiting_payment with the configured price, results stay 409
 * until paid; forged, stale, wrong-amount and replayed webhooks
 * change nothing; a signed webhook from the payment provider (a TEST DOUBLE: a function here that
 * signs as the provider would) releases the job to done; the admin tool's `payments record` does
 * the same; 402 on POST /v2/checks without an API agreement.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { issueApiKey } from '../../services/admin/keys.ts';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { signCallback } from '../../services/platform/webhook-signature.ts';
import type { AccountStore } from '../../services/platform/store/accounts-port.ts';
import type { UsageStore } from '../../services/platform/store/usage-port.ts';
import { mixedRows } from '../support/pipeline.ts';
import { TEST_PAYMENT_WEBHOOK_SECRET } from '../support/deployments.ts';
import { isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../services/admin/cli.ts');
type Json = Record<string, any>;

/** The payment provider, as a test double: posts a `payment.succeeded` event signed with its secret. */
async function fakePaymentProviderSends(
  d: Deployment, event: { id: string; job_id: string; amount_cents: number; currency?: string },
  options: { secret?: string; at?: number } = {},
): Promise<{ status: number; json: Json; replayed: boolean }> {
  const body = JSON.stringify({
    id: event.id, type: 'payment.succeeded',
    data: { job_id: event.job_id, amount_cents: event.amount_cents, currency: event.currency ?? 'DKK' },
  });
  const at = options.at ?? Math.floor(Date.now() / 1000);
  const response = await fetch(new URL('/v2/payments/webhook', d.baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Payment-Signature': signCallback(body, options.secret ?? TEST_PAYMENT_WEBHOOK_SECRET, at) },
    body,
  });
  return { status: response.status, json: (await response.json()) as Json, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

async function postNdjson(d: Deployment, key: string, lines: number, lineText: (i: number) => string): Promise<Json> {
  const body = Array.from({ length: lines }, (_, i) => lineText(i)).join('\n');
  const response = await fetch(new URL('/v2/check-jobs', d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/x-ndjson' }, body,
  });
  const json = (await response.json()) as Json;
  expect(response.status, JSON.stringify(json)).toBe(202);
  return json;
}

async function call(d: Deployment, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, d.baseUrl), {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

export async function billingScenario(
  d: Deployment, stores: { accounts: AccountStore; usage: UsageStore }, adminEnv: Record<string, string>,
): Promise<void> {
  const { accounts } = stores;
  const org = await createOrganisation(accounts, { name: `pay-${Date.now()}`, plan: 'pay_per_list' });
  const key = (await issueApiKey(accounts, org.id, 'live')).key;
  const keyFor = { ...d, liveKey: key };

  // 402: pay-per-list without an API agreement may not use POST /v2/checks.
  const sync = await call(d, key, 'POST', '/v2/checks', { people: [{ name: 'A B', address: 'Vej 1, 8000 Aarhus C' }] });
  expect(sync.status).toBe(402);
  expect(sync.json.error.details).toEqual({ reason: 'no_api_agreement' });

  // The price from configuration (default 495.00 DKK for up to 1,000 rows; the 50,000 and
  // 500,000-row prices are proved on the API alone in test/integration/api/billing.test.ts).
  const rows = mixedRows(500);
  const small = await postNdjson(d, key, 500, (i) => JSON.stringify(rows[i].person));
  expect(small).toMatchObject({ status: 'awaiting_payment', price: { product: 'list_small', amount_cents: 49_500, currency: 'DKK' } });

  // Unpaid: matched in the background (every row processed), but neither done nor readable.
  const waiting = await waitForJob(keyFor, small.id, (j) => j.status === 'awaiting_payment' && j.processed_count === 500, 60_000, key);
  expect(waiting.certificate_token).toBeNull();
  expect((await call(d, key, 'GET', `/v2/check-jobs/${small.id}/results`)).status).toBe(409);

  // Webhooks that must change nothing: forged, stale, wrong amount, wrong currency.
  const forged = await fakePaymentProviderSends(d, { id: 'evt_forged', job_id: small.id, amount_cents: 49_500 }, { secret: 'not-the-provider-secret' });
  expect(forged.status).toBe(401);
  expect(forged.json.error.details).toEqual({ reason: 'signature_invalid' });
  const stale = await fakePaymentProviderSends(d, { id: 'evt_stale', job_id: small.id, amount_cents: 49_500 }, { at: Math.floor(Date.now() / 1000) - 3600 });
  expect(stale.status).toBe(401);
  expect(stale.json.error.details).toEqual({ reason: 'timestamp_out_of_tolerance' });
  const cheap = await fakePaymentProviderSends(d, { id: 'evt_cheap', job_id: small.id, amount_cents: 100 });
  expect(cheap.status).toBe(422);
  expect(cheap.json.error.details).toEqual({ reason: 'amount_mismatch' });
  const euro = await fakePaymentProviderSends(d, { id: 'evt_eur', job_id: small.id, amount_cents: 49_500, currency: 'EUR' });
  expect(euro.status).toBe(422);
  // A refused webhook answers before it publishes anything; that none recorded a payment shows
  // below, where the real payment's outcome is `recorded`, not `already_paid`.
  expect((await call(d, key, 'GET', `/v2/check-jobs/${small.id}`)).json.status).toBe('awaiting_payment');

  // The real payment: the job runs to done with its certificate.
  const paid = await fakePaymentProviderSends(d, { id: 'evt_paid', job_id: small.id, amount_cents: 49_500 });
  expect(paid).toMatchObject({ status: 200, json: { received: true, job_id: small.id, outcome: 'recorded' }, replayed: false });
  const done = await waitForJob(keyFor, small.id, isFinished, 60_000, key);
  expect(done).toMatchObject({ status: 'done', processed_count: 500, price: small.price });
  expect(done.certificate_token).toEqual(expect.any(String));
  expect((await call(d, key, 'GET', `/v2/check-jobs/${small.id}/results?limit=10`)).status).toBe(200);

  // Replays: the same event again answers as before; a new event for a paid job changes nothing.
  const replay = await fakePaymentProviderSends(d, { id: 'evt_paid', job_id: small.id, amount_cents: 49_500 });
  expect(replay).toMatchObject({ status: 200, json: paid.json, replayed: true });
  const again = await fakePaymentProviderSends(d, { id: 'evt_paid_twice', job_id: small.id, amount_cents: 49_500 });
  expect(again.json.outcome).toBe('already_paid');
  expect((await call(d, key, 'GET', `/v2/check-jobs/${small.id}`)).json).toEqual(await waitForJob(keyFor, small.id, () => true, 1000, key));
  expect((await call(d, key, 'GET', `/v2/check-jobs/${small.id}`)).json.finished_at).toBe(done.finished_at);

  // A payment recorded with the admin tool releases a job the same way.
  const byAdmin = await postNdjson(d, key, 20, (i) => JSON.stringify(rows[i].person));
  expect(byAdmin.status).toBe('awaiting_payment');
  const { stdout } = await run(process.execPath, [CLI, 'payments', 'record', '--job', byAdmin.id, '--json'], {
    env: { ...process.env, ...adminEnv, LOG_LEVEL: 'warn' },
  });
  expect(JSON.parse(stdout)).toEqual({ job_id: byAdmin.id, outcome: 'recorded' });
  expect(await waitForJob(keyFor, byAdmin.id, isFinished, 60_000, key)).toMatchObject({ status: 'done', processed_count: 20 });

  // Usage (docs/decisions.md §8): live job rows and live checks per organisation and month, never test keys.
  const person = { people: [{ name: 'A B', address: 'Vej 1, 8000 Aarhus C' }, { name: 'C D', address: '?' }] };
  const liveCheck = await call(d, d.liveKey, 'POST', '/v2/checks', person);
  expect(liveCheck.status).toBe(200);
  expect((await call(d, d.testKey, 'POST', '/v2/checks', person)).status).toBe(200);
  const month = new Date().toISOString().slice(0, 7);
  const deadline = Date.now() + 30_000;
  const seen = async () => (await stores.usage.monthly(month)).filter((t) => t.kind === 'person_check' && t.org_id !== org.id);
  while ((await seen()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const usage = await run(process.execPath, [CLI, 'usage', '--month', month, '--json'], { env: { ...process.env, ...adminEnv, LOG_LEVEL: 'warn' } });
  const totals = JSON.parse(usage.stdout) as Array<{ org_id: string; kind: string; count: number; entries: number }>;
  expect(totals.filter((t) => t.org_id === org.id)).toEqual([{ org_id: org.id, kind: 'job_row', count: 520, entries: 2 }]);
  // The deployment's own organisation: exactly the one live request of 2 people (its test-key call is not counted).
  const others = totals.filter((t) => t.org_id !== org.id && t.kind === 'person_check');
  expect(others).toEqual([expect.objectContaining({ kind: 'person_check', count: 2, entries: 1 })]);
}
