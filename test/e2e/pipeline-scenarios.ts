/**
 * The asynchronous check-job scenarios, written once against a running deployment reached over
 * real HTTP, and run by pipeline.embedded.test.ts (npm start's one process) and
 * pipeline.distributed.test.ts (Kafka + ClickHouse, matchers and projection as child processes).
 */
import { CheckJobResultsPageSchema } from '../../services/api/schemas/check-job.ts';
import { expect } from 'vitest';
import type { PersonInput } from '../../services/domain/types.ts';
import type { CallbackReceiver, ReceivedCallback } from '../support/callback-receiver.ts';
import { signatureVerifies } from '../support/callback-receiver.ts';
import type { MixedRow } from '../support/pipeline.ts';

export interface Deployment {
  baseUrl: string;
  liveKey: string;
  testKey: string;
  /** The live list version jobs pin. */
  listVersionId: string;
  receiver: CallbackReceiver;
}

type Json = Record<string, any>;

export async function api(d: Deployment, method: string, path: string, body?: unknown, key = d.liveKey): Promise<{ status: number; json: Json; text: string }> {
  const response = await fetch(new URL(path, d.baseUrl), {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : {}, text };
}

export async function createJob(d: Deployment, people: PersonInput[], callbackUrl?: string, key = d.liveKey): Promise<Json> {
  const { status, json } = await api(d, 'POST', '/v2/check-jobs', { people, ...(callbackUrl ? { callback_url: callbackUrl } : {}) }, key);
  expect(status, JSON.stringify(json)).toBe(202);
  return json;
}

export async function getJob(d: Deployment, id: string, key = d.liveKey): Promise<Json> {
  const { status, json } = await api(d, 'GET', `/v2/check-jobs/${id}`, undefined, key);
  expect(status).toBe(200);
  return json;
}

/** Polls the job until `check` holds; fails with the last job seen after `timeoutMs`. */
export async function waitForJob(d: Deployment, id: string, check: (job: Json) => boolean, timeoutMs = 60_000, key = d.liveKey): Promise<Json> {
  const end = Date.now() + timeoutMs;
  let job: Json = {};
  while (Date.now() < end) {
    job = await getJob(d, id, key);
    if (check(job)) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${id} did not reach the expected state in ${timeoutMs} ms; last seen: ${JSON.stringify({ ...job, preview: undefined })}`);
}

export const isFinished = (job: Json) => job.status === 'done' || job.status === 'failed';

/** Every result page of a done job, in order. */
export async function allResults(d: Deployment, id: string, limit = 10_000, key = d.liveKey): Promise<{ results: Json[]; pages: Json[] }> {
  const results: Json[] = [];
  const pages: Json[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const { status, json } = await api(d, 'GET', `/v2/check-jobs/${id}/results?${query}`, undefined, key);
    expect(status, JSON.stringify(json)).toBe(200);
    // The API joins stored result JSON without its response serializer: every page is checked here.
    const checked = CheckJobResultsPageSchema.safeParse(json);
    expect(checked.success, checked.error?.message).toBe(true);
    pages.push(json);
    results.push(...json.results);
    cursor = json.next_cursor;
  } while (cursor);
  return { results, pages };
}

/**
 * A done job has exactly one result per row, in input order, with the expected levels; counts
 * add up to the rows and agree with the results; every page and the job name the pinned version.
 */
export async function expectCompleteResults(d: Deployment, job: Json, rows: MixedRow[], versionId: string, key = d.liveKey): Promise<void> {
  expect(job.status).toBe('done');
  expect(job.row_count).toBe(rows.length);
  expect(job.processed_count).toBe(rows.length);
  expect(job.allowed_count + job.blocked_count + job.manual_count).toBe(rows.length);
  const levelTotal = Object.values(job.level_counts as Record<string, number>).reduce((a, b) => a + b, 0);
  expect(levelTotal).toBe(rows.length);
  expect(job.list_version.id).toBe(versionId);
  expect(job.finished_at).not.toBeNull();
  expect(job.preview).toHaveLength(Math.min(20, rows.length));

  const { results, pages } = await allResults(d, job.id, 10_000, key);
  expect(results).toHaveLength(rows.length);
  const ids = results.map((r) => r.id);
  expect(new Set(ids).size).toBe(rows.length);
  expect(ids).toEqual(rows.map((r) => r.person.id));
  expect(results.map((r) => r.match.level)).toEqual(rows.map((r) => r.level));
  for (const page of pages) expect(page.list_version.id).toBe(versionId);

  const expected: Record<string, number> = { '0': 0, '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unread: 0 };
  for (const row of rows) expected[row.level === null ? 'unread' : String(row.level)] += 1;
  expect(job.level_counts).toEqual(expected);
  const byStatus = { allowed: 0, blocked: 0, manual: 0 } as Record<string, number>;
  for (const r of results) byStatus[r.status] += 1;
  expect([job.allowed_count, job.blocked_count, job.manual_count]).toEqual([byStatus.allowed, byStatus.blocked, byStatus.manual]);
  expect(job.preview.map((p: Json) => p.result.id)).toEqual(ids.slice(0, 20));
}

/**
 * Exactly one completion event reached the receiver for the job: every request carries the same
 * Service-Delivery id and body, the right event, a signature that verifies, and exactly one was
 * answered 2xx. The body is the job as GET shows it, except its `callback` (pending, 0 attempts).
 * Its deadlines only bound a failure (the waits end on the signal): generous, for a loaded CI machine.
 */
export async function expectOneCallback(d: Deployment, path: string, job: Json, event: string, key = d.liveKey): Promise<ReceivedCallback[]> {
  const deadline = Date.now() + 60_000;
  while (d.receiver.received(path).filter((r) => r.answered < 300).length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const got = d.receiver.received(path);
  expect(got.filter((r) => r.answered < 300)).toHaveLength(1);
  expect(new Set(got.map((r) => r.headers['service-delivery'])).size).toBe(1);
  expect(new Set(got.map((r) => r.body)).size).toBe(1);
  for (const r of got) {
    expect(r.headers['service-event']).toBe(event);
    expect(signatureVerifies(r.headers, r.body, key)).toBe(true);
    expect(signatureVerifies(r.headers, r.body, `${key}x`)).toBe(false);
  }
  const body = JSON.parse(got[0].body);
  const now = await waitForJob(d, job.id, (j) => j.callback?.state !== 'pending', 60_000, key);
  expect(body.callback).toMatchObject({ state: 'pending', attempts: 0, delivery_id: got[0].headers['service-delivery'], event });
  expect({ ...body, callback: null }).toEqual({ ...now, callback: null });
  return got;
}
