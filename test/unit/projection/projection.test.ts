/**
 * The projection's consumer side on the embedded job store, fed decoded events directly (no event
 * log): results in any order and redelivered, exact counts, one completion, callbacks dispatched
 * once and resumed after a restart, failures, retention.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyLevelCounts } from '../../../services/domain/check-job.ts';
import { TEST_LIST_VERSION, testModeCheck } from '../../../services/domain/index.ts';
import type { PersonInput } from '../../../services/domain/types.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createRetentionSchedule } from '../../../services/platform/retention.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import type { JobRecord, JobStore } from '../../../services/platform/store/jobs-port.ts';
import type { PipelineEvent, ResultsChunkEvent } from '../../../services/pipeline/events.ts';
import type { CallbackRequest, CallbackSender, DeliveryState } from '../../../services/projection/callbacks/index.ts';
import { recordAttempt } from '../../../services/projection/callbacks/index.ts';
import { createProjection, type Projection } from '../../../services/projection/projection.ts';
import { projectionBatchHandler } from '../../../services/projection/index.ts';
import { createPipelineEvents } from '../../../services/pipeline/events.ts';
import { UNPROCESSABLE_MESSAGE } from '../../../services/pipeline/poison.ts';
import { PermanentError } from '../../../services/platform/errors.ts';
import { UnrecoverableMessageError, type MessageBatch } from '../../../services/platform/log/port.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';

const SURNAMES = ['Robinson', 'Bygning', 'Fornavn', 'Efternavn', 'Husstand', 'Jensen'];

function person(row: number): PersonInput {
  if (row % 11 === 7) return { name: 'Anne Hansen', address: '?' };
  if (row % 13 === 5) return { address: 'Vestergade 12, 8000 Aarhus C' };
  return { id: `r${row}`, name: `Anne ${SURNAMES[row % SURNAMES.length]}`, address: 'Vestergade 12, 8000 Aarhus C' };
}

function resultsChunk(jobId: string, chunk: number, rows: number[]): PipelineEvent {
  const value: ResultsChunkEvent = {
    job_id: jobId, list_version_id: TEST_LIST_VERSION.id, chunk,
    results: rows.map((row) => ({ row, cells: null, result: testModeCheck(person(row), { policy: 'standard', stopLevel: 1, locale: 'en' }) })),
  };
  return { type: 'ResultsChunk', value };
}

function rowsComplete(jobId: string, rowCount: number): PipelineEvent {
  return { type: 'RowsComplete', value: { job_id: jobId, row_count: rowCount, chunk_count: 1, input_sha256: 'c'.repeat(64), completed_at: new Date().toISOString() } };
}

function newJob(rowCount: number, overrides: Partial<JobRecord> = {}): JobRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(), org_id: randomUUID(), mode: 'test', source: 'api', status: 'queued', filename: null, file_format: null,
    row_count: rowCount, processed_count: 0, allowed_count: 0, blocked_count: 0, manual_count: 0, level_counts: emptyLevelCounts(),
    columns: [], column_mapping: null, options: { policy: 'standard', stop_level: 1 }, preview: [], price: null,
    list_version: { ...TEST_LIST_VERSION }, certificate_token: null, error: null,
    delete_after: new Date(Date.now() + 86_400_000).toISOString(), created_at: now, finished_at: null,
    callback_url: 'https://hooks.example/x', callback: null, external_ref: null, key_hash: 'k'.repeat(64),
    input_sha256: 'c'.repeat(64), updated_at: now, ...overrides,
  };
}

/** A sender that answers each attempt from a script (true = 2xx) and records every request. */
function fakeSender(answers: boolean[] = [true]): CallbackSender & { requests: CallbackRequest[] } {
  const requests: CallbackRequest[] = [];
  return {
    requests,
    async attemptDelivery() {
      throw new Error('not used');
    },
    async deliver(request, options = {}) {
      let state: DeliveryState = options.state!;
      while (state.state === 'pending') {
        requests.push(request);
        const ok = answers[Math.min(requests.length - 1, answers.length - 1)];
        state = recordAttempt(state, { at: Date.now(), ok, statusCode: ok ? 200 : 500, error: ok ? null : 'http_status', retriable: true }, [0, 0]);
        await options.onAttempt?.(state);
      }
      return state;
    },
  };
}

const open: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.stop();
});

function setup(jobs?: JobStore, sender = fakeSender(), options: { countIntervalMs?: number; callbackLeaseMs?: number } = {}) {
  const store = jobs ?? createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
  const published: PipelineEvent[] = [];
  const projection: Projection = createProjection({
    jobs: store, events: { publish: async (e) => void published.push(...(Array.isArray(e) ? e : [e])) },
    callbacks: sender, renderJob: (job) => JSON.stringify({ id: job.id, status: job.status, callback: job.callback }),
    logger: silentLogger(), countIntervalMs: options.countIntervalMs ?? 60_000,
    ...(options.callbackLeaseMs !== undefined ? { callbackLeaseMs: options.callbackLeaseMs } : {}),
  });
  open.push(projection);
  return { store, projection, published, sender };
}

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('projection', () => {
  it('stores results out of order and redelivered, counts exactly, completes once with preview and callback', async () => {
    const { store, projection, published, sender } = setup();
    const job = newJob(50);
    await store.createJob(job);
    await projection.start();
    const all = Array.from({ length: 50 }, (_, i) => i);
    await projection.handle([resultsChunk(job.id, 1, all.slice(25)), resultsChunk(job.id, 1, all.slice(25))]);
    expect((await store.getJobById(job.id))?.status).toBe('running');
    await projection.handle([rowsComplete(job.id, 50), resultsChunk(job.id, 0, all.slice(0, 30))]);
    await projection.handle([resultsChunk(job.id, 0, all.slice(0, 30)), rowsComplete(job.id, 50)]);

    const done = await store.getJobById(job.id);
    expect(done?.status).toBe('done');
    const counts = await store.countResults(job.id);
    expect(done?.processed_count).toBe(50);
    expect(counts.processed).toBe(50);
    expect(done!.allowed_count + done!.blocked_count + done!.manual_count).toBe(50);
    expect(done?.level_counts).toEqual(counts.level_counts);
    expect(Object.values(done!.level_counts).reduce((a, b) => a + b, 0)).toBe(50);
    expect(done?.preview.map((p) => p.result.id)).toEqual((await store.readResults(job.id, { limit: 20 })).rows.map((r) => r.result.id));
    expect(done?.preview).toHaveLength(20);
    expect(done?.finished_at).not.toBeNull();
    expect(published.filter((e) => e.type === 'JobStateChanged').map((e) => (e.value as { status: string }).status)).toEqual(['running', 'done']);

    await until(async () => (await store.getJobById(job.id))?.callback?.state === 'delivered');
    expect(sender.requests).toHaveLength(1);
    expect(sender.requests[0].event).toBe('check_job.completed');
    expect(JSON.parse(sender.requests[0].body)).toMatchObject({ id: job.id, status: 'done', callback: { state: 'pending', attempts: 0 } });
  });

  it('retries a failing receiver with the same delivery id and body, recording the outcome', async () => {
    const { store, projection, sender } = setup(undefined, fakeSender([false, false, true]));
    const job = newJob(3);
    await store.createJob(job);
    await projection.start();
    await projection.handle([resultsChunk(job.id, 0, [0, 1, 2]), rowsComplete(job.id, 3)]);
    await until(async () => (await store.getJobById(job.id))?.callback?.state === 'delivered');
    expect(sender.requests).toHaveLength(3);
    expect(new Set(sender.requests.map((r) => r.deliveryId)).size).toBe(1);
    expect(new Set(sender.requests.map((r) => r.body)).size).toBe(1);
    expect((await store.getJobById(job.id))?.callback).toMatchObject({ attempts: 3, last_status: 200 });
  });

  it('a restarted projection counts what was stored before and completes the job once', async () => {
    const first = setup();
    const job = newJob(40);
    await first.store.createJob(job);
    await first.projection.handle([resultsChunk(job.id, 0, Array.from({ length: 30 }, (_, i) => i))]);
    await first.projection.stop();
    // The same chunk again (its offset was never committed), then the rest.
    const second = setup(first.store, first.sender);
    await second.projection.start();
    await second.projection.handle([resultsChunk(job.id, 0, Array.from({ length: 30 }, (_, i) => i))]);
    expect((await first.store.getJobById(job.id))?.status).toBe('running');
    await second.projection.handle([resultsChunk(job.id, 1, Array.from({ length: 10 }, (_, i) => 30 + i)), rowsComplete(job.id, 40)]);
    await second.projection.handle([rowsComplete(job.id, 40), resultsChunk(job.id, 1, [39])]);
    const done = await first.store.getJobById(job.id);
    expect(done).toMatchObject({ status: 'done', processed_count: 40 });
    await until(() => first.sender.requests.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(first.sender.requests).toHaveLength(1);
  });

  it('resumes a pending delivery on start, keeping its delivery id', async () => {
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const deliveryId = randomUUID();
    const job = newJob(0, {
      status: 'done',
      callback: { delivery_id: deliveryId, event: 'check_job.completed', state: 'pending', attempts: 1, last_status: 500, last_error: 'http_status', last_attempt_at: new Date().toISOString(), next_attempt_at: null, delivered_at: null } as JobRecord['callback'],
    });
    await store.createJob(job);
    const { projection, sender } = setup(store);
    await projection.start();
    await until(async () => (await store.getJobById(job.id))?.callback?.state === 'delivered');
    expect(sender.requests.map((r) => r.deliveryId)).toEqual([deliveryId]);
    expect((await store.getJobById(job.id))?.callback?.attempts).toBe(2);
  });

  it('fails a job reported failed, once, with a failure callback; later results are ignored', async () => {
    const { store, projection, sender } = setup();
    const job = newJob(10);
    await store.createJob(job);
    await projection.handle([resultsChunk(job.id, 0, [0, 1, 2])]);
    const failed: PipelineEvent = { type: 'JobStateChanged', value: { job_id: job.id, org_id: job.org_id, status: 'failed', error: 'list_version_unavailable', changed_at: new Date().toISOString(), processed_count: 0, finished_at: null } };
    await projection.handle([failed, failed, resultsChunk(job.id, 1, [3, 4])]);
    const record = await store.getJobById(job.id);
    expect(record).toMatchObject({ status: 'failed', error: 'list_version_unavailable', processed_count: 3 });
    await until(() => sender.requests.length === 1);
    expect(sender.requests[0].event).toBe('check_job.failed');
  });

  it('leaves the counts of a job deleted mid-run as they were', async () => {
    const { store, projection } = setup();
    const job = newJob(10);
    await store.createJob(job);
    await projection.handle([resultsChunk(job.id, 0, [0, 1, 2, 3])]);
    await store.updateJob(job.id, { processed_count: 4 });
    await store.purgeJob(job.id, new Date().toISOString());
    await projection.handle([resultsChunk(job.id, 1, [4, 5, 6, 7, 8, 9]), rowsComplete(job.id, 10)]);
    const failed: PipelineEvent = { type: 'JobStateChanged', value: { job_id: job.id, org_id: job.org_id, status: 'failed', error: 'x', changed_at: new Date().toISOString(), processed_count: 0, finished_at: null } };
    await projection.handle([failed]);
    expect(await store.getJobById(job.id)).toMatchObject({ status: 'deleted', processed_count: 4, callback: null });
    expect((await store.countResults(job.id)).processed).toBe(0);
  });

  it('completes and calls back even when JobStateChanged cannot be published', async () => {
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const sender = fakeSender();
    const projection = createProjection({
      jobs: store, events: { publish: async () => { throw new Error('broker down'); } }, callbacks: sender,
      renderJob: (job) => JSON.stringify({ id: job.id }), logger: silentLogger(), 
    });
    open.push(projection);
    const job = newJob(2);
    await store.createJob(job);
    await projection.handle([resultsChunk(job.id, 0, [0, 1]), rowsComplete(job.id, 2)]);
    expect((await store.getJobById(job.id))?.status).toBe('done');
    await until(() => sender.requests.length === 1);
  });

  it('completes a job of zero rows on RowsComplete', async () => {
    const { store, projection } = setup();
    const job = newJob(0, { callback_url: null });
    await store.createJob(job);
    await projection.handle([rowsComplete(job.id, 0)]);
    expect(await store.getJobById(job.id)).toMatchObject({ status: 'done', processed_count: 0, callback: null, preview: [] });
  });

  it('keeps running while its store is down: a failing sweep is logged, never an unhandled rejection', async () => {
    // As ClickHouse restarting looks to the timers: every query refused.
    const down = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const calls = { intakes: 0, retention: 0 };
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const broken: JobStore = {
      ...store,
      listStalledIntakes: () => (calls.intakes++, down()),
      listJobsDueForDeletion: () => (calls.retention++, down()),
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const projection = createProjection({
        jobs: broken, events: { publish: async () => undefined }, callbacks: fakeSender(),
        renderJob: (job) => JSON.stringify({ id: job.id }), logger: silentLogger(), intakeStaleMs: 4_000,
      });
      open.push(projection);
      // Its retention pass on the process's retention timer, as services/processes.ts runs it.
      const retention = createRetentionSchedule({ intervalMs: 50, logger: silentLogger() });
      retention.register('job-purge', async () => { await projection.sweepRetention(); });
      await projection.start();
      retention.start();
      await until(() => calls.intakes >= 2 && calls.retention >= 2, 5_000);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
      await retention.stop();
      await projection.stop();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('fails a job whose intake went silent (intake_interrupted), once, with a failure callback; living and closed intakes stay', async () => {
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const sender = fakeSender();
    const published: PipelineEvent[] = [];
    let now = Date.parse('2026-05-01T12:00:00.000Z');
    const projection = createProjection({
      jobs: store, events: { publish: async (e) => void published.push(...(Array.isArray(e) ? e : [e])) }, callbacks: sender,
      renderJob: (job) => JSON.stringify({ id: job.id, status: job.status }), logger: silentLogger(), 
      intakeStaleMs: 60_000, clock: () => new Date(now),
    });
    open.push(projection);
    const created = new Date(now).toISOString();
    const dead = newJob(10, { created_at: created });
    const slow = newJob(10, { created_at: created });
    const complete = newJob(3, { created_at: created });
    for (const job of [dead, slow, complete]) await store.createJob(job);
    await projection.handle([resultsChunk(dead.id, 0, [0, 1, 2, 3])]); // the rows that made it to the log
    await store.touchIntake(complete.id, { at: created, closed: true });
    await projection.handle([resultsChunk(complete.id, 0, [0, 1])]); // closed, not all results yet

    now += 59_000;
    await store.touchIntake(slow.id, { at: new Date(now).toISOString(), closed: false }); // still publishing
    expect(await projection.sweepStalledIntakes()).toBe(0);
    now += 2_000; // dead silent for 61 s, slow for 2 s
    expect(await projection.sweepStalledIntakes()).toBe(1);
    expect(await store.getJobById(dead.id)).toMatchObject({
      status: 'failed', error: 'intake_interrupted', processed_count: 4, finished_at: new Date(now).toISOString(),
      callback: { state: expect.any(String), event: 'check_job.failed' },
    });
    expect((await store.getJobById(slow.id))?.status).toBe('queued');
    expect((await store.getJobById(complete.id))?.status).toBe('running');
    await until(() => sender.requests.length === 1);
    expect(sender.requests[0]).toMatchObject({ event: 'check_job.failed' });
    expect(published.filter((e) => e.type === 'JobStateChanged' && e.value.job_id === dead.id && e.value.status === 'failed')).toHaveLength(1);
    // Never again: the intake is closed and the job failed, whatever happens later.
    now += 600_000;
    await projection.handle([resultsChunk(dead.id, 1, [4, 5])]);
    expect(await projection.sweepStalledIntakes()).toBe(1); // `slow` went silent meanwhile
    expect(await store.getJobById(dead.id)).toMatchObject({ status: 'failed', processed_count: 4 });
    expect(await store.listStalledIntakes(new Date(now + 1).toISOString(), 100)).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(sender.requests.filter((r) => r.url === dead.callback_url && JSON.parse(r.body).id === dead.id)).toHaveLength(1);
  });

  it('two projection processes on one store, one storing a job\'s results while the other reads its RowsComplete: each job done once, one callback', async () => {
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const sender = fakeSender();
    // As a rebalance leaves them: one owns the job's checks.results partition, the other its jobs.events one.
    const a = setup(store, sender, { countIntervalMs: 50 });
    const b = setup(store, sender, { countIntervalMs: 50 });
    await a.projection.start();
    await b.projection.start();
    // The intake has not sealed the jobs yet (no row count known): only RowsComplete tells.
    const jobs = Array.from({ length: 30 }, () => newJob(0, { input_sha256: null }));
    for (const job of jobs) await store.createJob(job);
    const rows = Array.from({ length: 40 }, (_, i) => i);
    await Promise.all(jobs.flatMap((job, i) => [
      a.projection.handle([resultsChunk(job.id, 0, rows.slice(0, 20)), resultsChunk(job.id, 1, rows.slice(20))]),
      // Half the jobs also have a redelivered chunk on the other process (a rebalance mid-batch).
      b.projection.handle(i % 2 === 0 ? [rowsComplete(job.id, 40)] : [resultsChunk(job.id, 1, rows.slice(20)), rowsComplete(job.id, 40)]),
    ]));
    for (const job of jobs) {
      await until(async () => (await store.getJobById(job.id))?.status === 'done');
      expect(await store.getJobById(job.id)).toMatchObject({ processed_count: 40, row_count: 40 });
    }
    await until(() => sender.requests.length >= jobs.length);
    await until(async () => (await Promise.all(jobs.map((j) => store.getJobById(j.id)))).every((j) => j?.callback?.state === 'delivered'));
    const published = [...a.published, ...b.published];
    for (const job of jobs) {
      expect(sender.requests.filter((r) => JSON.parse(r.body).id === job.id), job.id).toHaveLength(1);
      expect(published.filter((e) => e.type === 'JobStateChanged' && e.value.job_id === job.id && e.value.status === 'done')).toHaveLength(1);
    }
  });

  it('a delivery held by a process that died is taken over by another once its lease ran out, not before', async () => {
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const deliveryId = randomUUID();
    const leaseUntil = Date.now() + 400;
    const job = newJob(0, {
      status: 'done',
      callback: {
        delivery_id: deliveryId, event: 'check_job.completed', state: 'pending', attempts: 0, last_status: null, last_error: null,
        last_attempt_at: null, next_attempt_at: null, delivered_at: null, lease_until: new Date(leaseUntil).toISOString(),
      } as JobRecord['callback'],
    });
    await store.createJob(job);
    const { projection, sender } = setup(store, fakeSender(), { callbackLeaseMs: 100 });
    await projection.start();
    expect(sender.requests).toHaveLength(0);
    await until(async () => (await store.getJobById(job.id))?.callback?.state === 'delivered');
    expect(Date.now()).toBeGreaterThanOrEqual(leaseUntil);
    expect(sender.requests.map((r) => r.deliveryId)).toEqual([deliveryId]);
    expect((await store.getJobById(job.id))?.callback).toMatchObject({ attempts: 1, lease_until: null });
  });

  it('of two processes looking for the same pending delivery at once, one delivers it', async () => {
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const sender = fakeSender();
    const jobs = Array.from({ length: 20 }, () => newJob(0, {
      status: 'done',
      callback: { delivery_id: randomUUID(), event: 'check_job.completed', state: 'pending', attempts: 0, last_status: null, last_error: null, last_attempt_at: null, next_attempt_at: null, delivered_at: null } as JobRecord['callback'],
    }));
    for (const job of jobs) await store.createJob(job);
    const a = setup(store, sender);
    const b = setup(store, sender);
    await Promise.all([a.projection.start(), b.projection.start()]);
    await until(async () => (await Promise.all(jobs.map((j) => store.getJobById(j.id)))).every((j) => j?.callback?.state === 'delivered'));
    for (const job of jobs) expect(sender.requests.filter((r) => r.deliveryId === job.callback?.delivery_id)).toHaveLength(1);
  });

  it('purges jobs whose delete_after has passed', async () => {
    const { store, projection, published } = setup();
    const job = newJob(2, { delete_after: '2001-01-01T00:00:00.000Z' });
    await store.createJob(job);
    await store.putResults(job.id, job.delete_after, (resultsChunk(job.id, 0, [0, 1]).value as ResultsChunkEvent).results);
    expect(await projection.sweepRetention()).toBeGreaterThanOrEqual(1);
    expect((await store.getJobById(job.id))?.status).toBe('deleted');
    expect((await store.countResults(job.id)).processed).toBe(0);
    expect(published.some((e) => e.type === 'JobStateChanged' && e.value.job_id === job.id && e.value.status === 'deleted')).toBe(true);
  });

  describe('its consumer handler decides by isPermanent what a store failure is', () => {
    const events = createPipelineEvents({ log: { publish: async () => undefined }, registry: createStaticSchemaRegistry(loadSchemaCatalog()) });

    /** The batch the event log would hand over: each event encoded, with its key, at offsets from 0. */
    async function batchOf(list: PipelineEvent[]): Promise<MessageBatch> {
      const messages = [];
      for (const [offset, event] of list.entries()) {
        const { topic, message } = await events.encode(event);
        messages.push({ topic, partition: 0, offset: String(offset), key: message.key, value: message.value, headers: {}, timestamp: Date.now() });
      }
      return { topic: messages[0].topic, partition: 0, messages };
    }

    /** The embedded store refusing `failing` job's results with `error`, as a store that cannot take them would. */
    function refusing(failing: string, error: () => Error): JobStore {
      const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
      return { ...store, putResults: (jobId, deleteAfter, rows) => (jobId === failing ? Promise.reject(error()) : store.putResults(jobId, deleteAfter, rows)) };
    }

    it('a PermanentError from the store fails that job (unprocessable_message) and hands its message back as unrecoverable; the others are stored', async () => {
      const bad = newJob(2);
      const good = newJob(2);
      const store = refusing(bad.id, () => new PermanentError('refused for good'));
      const { projection } = setup(store);
      await store.createJob(bad);
      await store.createJob(good);
      const batch = await batchOf([resultsChunk(good.id, 0, [0, 1]), resultsChunk(bad.id, 0, [0, 1])]);
      const handled = projectionBatchHandler(events, projection)(batch);
      await expect(handled).rejects.toBeInstanceOf(UnrecoverableMessageError);
      const error = (await handled.catch((e: unknown) => e)) as UnrecoverableMessageError;
      expect(error.offending.offset).toBe('1');
      expect(error.reason).toBe(`${UNPROCESSABLE_MESSAGE}: Error`);
      expect(await store.getJobById(bad.id)).toMatchObject({ status: 'failed', error: UNPROCESSABLE_MESSAGE });
      expect((await store.countResults(good.id)).processed).toBe(2);
      expect((await store.getJobById(good.id))?.status).not.toBe('failed');
    });

    it('a transient store failure is thrown as it is and fails no job; the batch delivered again is stored', async () => {
      const job = newJob(2);
      const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
      let refusals = 1;
      // Down once (as ClickHouse restarting looks), then answering.
      const flaky: JobStore = {
        ...store,
        putResults: (...args) => (refusals-- > 0 ? Promise.reject(new Error('connect ECONNREFUSED')) : store.putResults(...args)),
      };
      const { projection } = setup(flaky);
      await store.createJob(job);
      const batch = await batchOf([resultsChunk(job.id, 0, [0, 1])]);
      const handle = projectionBatchHandler(events, projection);
      const first = handle(batch);
      await expect(first).rejects.toThrow('connect ECONNREFUSED');
      await expect(first).rejects.not.toBeInstanceOf(UnrecoverableMessageError);
      expect(await store.getJobById(job.id)).toMatchObject({ error: null });
      expect((await store.countResults(job.id)).processed).toBe(0);
      await handle(batch);
      expect((await store.countResults(job.id)).processed).toBe(2);
      expect((await store.getJobById(job.id))?.status).not.toBe('failed');
    });
  });
});

