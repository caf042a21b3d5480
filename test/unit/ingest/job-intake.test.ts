import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TEST_LIST_VERSION } from '../../../services/domain/index.ts';
import type { PersonInput } from '../../../services/domain/types.ts';
import { AddonRequiredError, JobInputError, ListNotReadyError, SpoolNotKeptError } from '../../../services/ingest/jobs/errors.ts';
import { EMBEDDED_APPEND_BYTES, MAX_APPENDS_IN_FLIGHT } from '../../../services/ingest/jobs/chunk-publisher.ts';
import { createJobIntake, type JobSpec } from '../../../services/ingest/jobs/intake.ts';
import { cellsTextLength, jsonTextLength, removeStaleSpoolFiles, spoolBody, spoolFileName, spoolHost, spoolPeople, spoolRows, type SpoolBatch, type SpoolRow } from '../../../services/ingest/jobs/spool.ts';
import { readPeopleFromJson } from '../../../services/ingest/people/index.ts';
import { utimesSync, writeFileSync } from 'node:fs';
import type { PipelineEvent } from '../../../services/pipeline/events.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import { until } from '../../support/until.ts';
import { setImmediate as turnOver } from 'node:timers/promises';

const LIVE = { id: '11111111-1111-4111-8111-111111111111', source: 'cpr' as const, published_on: '2026-10-01' };
const NOW = new Date('2026-03-01T10:00:00.000Z');

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'intake-unit-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function* batches(people: PersonInput[], size = 2, failAt?: number): AsyncGenerator<PersonInput[]> {
  for (let i = 0; i < people.length; i += size) {
    if (failAt !== undefined && i >= failAt) throw new Error('bad row');
    yield people.slice(i, i + size);
  }
}

const people: PersonInput[] = Array.from({ length: 5 }, (_, i) => ({ id: `p${i}`, name: `Person ${i}`, address: `Vej ${i}, 8000 Aarhus C` }));

function setup(options: {
  failPublishAt?: number; version?: typeof LIVE | null; callback?: (url: string) => Promise<unknown>; addressRegister?: () => string | null;
} = {}) {
  const db = openEmbeddedDatabase(':memory:');
  onTestFinished(() => db.close());
  const jobs = createEmbeddedJobStore(db);
  const published: PipelineEvent[] = [];
  let calls = 0;
  const spoolDir = tempDir();
  const intake = createJobIntake({
    jobs,
    events: {
      publish: async (events) => {
        calls += 1;
        if (options.failPublishAt !== undefined && calls >= options.failPublishAt) throw new Error('log down');
        published.push(...(Array.isArray(events) ? events : [events]));
      },
    },
    currentListVersion: () => (options.version === undefined ? LIVE : options.version),
    ...(options.addressRegister ? { currentAddressRegisterVersion: options.addressRegister } : {}),
    checkCallbackUrl: options.callback ?? (async () => undefined),
    logger: silentLogger(),
    spoolDir,
    chunkRows: 2,
    clock: () => NOW,
    prices: { list_small_cents: 100, list_large_cents: 1000, custom_cents_per_1000_rows: 10 },
  });
  return { jobs, intake, published, spoolDir };
}

const spec = (patch: Partial<JobSpec> = {}): JobSpec => ({
  source: 'sftp',
  org: { id: 'org-1', stop_level: 2, retention_days: 14, plan: 'annual' },
  mode: 'live',
  keyHash: 'ab'.repeat(32),
  locale: 'da',
  ...patch,
});

describe('job intake', () => {
  it('creates the record and publishes JobCreated, chunks in order and RowsComplete; the spool is gone', async () => {
    const { intake, jobs, published, spoolDir } = setup();
    const job = await intake.createJob({ ...spec(), people: batches(people) });
    expect(job).toMatchObject({
      source: 'sftp', status: 'queued', row_count: 5, list_version: LIVE, key_hash: 'ab'.repeat(32),
      options: { policy: 'standard', stop_level: 2, retention_days: 14 }, created_at: NOW.toISOString(),
      delete_after: '2026-03-15T10:00:00.000Z',
    });
    expect(await jobs.getJobById(job.id)).toEqual(job);
    expect(published.map((e) => e.type)).toEqual(['JobCreated', 'RowsChunk', 'RowsChunk', 'RowsChunk', 'RowsComplete']);
    const chunks = published.filter((e) => e.type === 'RowsChunk').map((e) => e.value as { chunk: number; rows: Array<{ row: number }> });
    expect(chunks.map((c) => c.rows.map((r) => r.row))).toEqual([[0, 1], [2, 3], [4]]);
    expect(published.at(-1)?.value).toMatchObject({ row_count: 5, chunk_count: 3, input_sha256: job.input_sha256 });
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('a live job pins the address register version active when queued on every chunk; a test job none; none active: null (text only)', async () => {
    let active: string | null = 'register-1';
    const { intake, published } = setup({ addressRegister: () => active });
    await intake.createJob({ ...spec(), people: batches(people) });
    active = 'register-2';
    await intake.createJob({ ...spec({ mode: 'test' }), people: batches(people) });
    active = null;
    await intake.createJob({ ...spec(), people: batches(people) });
    const pins = published.filter((e) => e.type === 'RowsChunk').map((e) => (e.value as { address_register_version_id: string | null }).address_register_version_id);
    expect(pins).toEqual(['register-1', 'register-1', 'register-1', null, null, null, null, null, null]);
  });

  it('pay_per_list: a live job waits in awaiting_payment with its price, rows published; a test job is never billed', async () => {
    const { intake, jobs, published } = setup();
    const payPerList = { id: 'org-2', stop_level: 1, retention_days: 30, plan: 'pay_per_list' as const };
    const job = await intake.createJob({ ...spec({ org: payPerList }), people: batches(people) });
    expect(job).toMatchObject({ status: 'awaiting_payment', price: { product: 'list_small', amount_cents: 100, currency: 'DKK' } });
    expect((await jobs.getJobById(job.id))?.status).toBe('awaiting_payment');
    expect(published.filter((e) => e.type === 'RowsChunk')).toHaveLength(3);
    const test = await intake.createJob({ ...spec({ org: payPerList, mode: 'test' }), people: batches(people) });
    expect(test).toMatchObject({ status: 'queued', price: null });
    const annual = await intake.createJob({ ...spec(), people: batches(people) });
    expect(annual).toMatchObject({ status: 'queued', price: null });
  });

  it('options: retention_days and stop_level override the organisation; top-level policy wins over options.policy', async () => {
    const { intake } = setup();
    const job = await intake.createJob({
      ...spec({ options: { retention_days: 90, stop_level: 4, policy: 'bdq' }, policy: 'strict' }),
      people: batches(people),
    });
    expect(job.options).toMatchObject({ retention_days: 90, stop_level: 4, policy: 'strict' });
    expect(job.delete_after).toBe('2026-05-30T10:00:00.000Z');
  });

  it('test mode pins the fixed test version and never asks for the live one', async () => {
    const { intake, published } = setup({ version: null });
    const job = await intake.createJob({ ...spec({ mode: 'test' }), people: batches(people) });
    expect(job.list_version).toEqual(TEST_LIST_VERSION);
    expect(published[0].value).toMatchObject({ mode: 'test', list_version_id: null });
  });

  it('a live job without an active version is refused before anything exists', async () => {
    const { intake, published, jobs, spoolDir } = setup({ version: null });
    await expect(intake.createJob({ ...spec(), people: batches(people) })).rejects.toBeInstanceOf(ListNotReadyError);
    expect(published).toEqual([]);
    expect(await jobs.listJobsDueForDeletion('9999-01-01T00:00:00.000Z', 100)).toEqual([]);
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('a refused callback URL or option is a JobInputError with paths, and nothing is created', async () => {
    const refuse = async () => {
      throw Object.assign(new Error('refused'), { reason: 'blocked_address' });
    };
    const { intake, published } = setup({ callback: refuse });
    const error = await intake
      .createJob({
        ...spec({ callback_url: 'https://10.0.0.1/x', options: { check_people: false } }),
        org: { id: 'org-1', stop_level: 2, retention_days: 14, plan: 'annual', addons: ['phone'] },
        people: batches(people),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobInputError);
    expect((error as JobInputError).issues.map((i) => [i.path, i.problem])).toEqual([
      ['options.check_people', 'no_check_asked'],
      ['callback_url', 'callback_refused'],
    ]);
    expect((error as JobInputError).issues[1].describe('en')).not.toContain('10.0.0.1');
    expect(published).toEqual([]);
  });

  it('a company or phone option without the add-on is an AddonRequiredError before anything is created', async () => {
    const { intake, published } = setup();
    for (const [option, addon] of [['check_companies', 'company'], ['check_phones', 'phone']] as const) {
      const error = await intake.createJob({ ...spec({ options: { [option]: true } }), people: batches(people) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AddonRequiredError);
      expect((error as AddonRequiredError).addon).toBe(addon);
    }
    expect(published).toEqual([]);
  });

  it('an input that fails half-way publishes nothing and leaves no spool file', async () => {
    const { intake, published, spoolDir } = setup();
    await expect(intake.createJob({ ...spec(), people: batches(people, 2, 4) })).rejects.toThrow('bad row');
    expect(published).toEqual([]);
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('bounds chunks and appends by size: wide rows make smaller chunks, every append stays under 1 MB', async () => {
    const { jobs } = setup();
    const wide = (i: number): PersonInput => Object.fromEntries(
      ['id', 'name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city', 'kvhx', 'phone', 'first_name', 'last_name']
        .map((field) => [field, `${i}`.padEnd(200, 'x')]),
    );
    const appends: PipelineEvent[][] = [];
    const sized = createJobIntake({
      jobs, events: { publish: async (events) => void appends.push(Array.isArray(events) ? events : [events]) },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: tempDir(),
    });
    const job = await sized.createJob({ ...spec(), people: batches(Array.from({ length: 1000 }, (_, i) => wide(i)), 100) });
    const chunks = appends.flat().filter((e) => e.type === 'RowsChunk').map((e) => e.value as { rows: unknown[] });
    expect(chunks.reduce((n, c) => n + c.rows.length, 0)).toBe(1000);
    for (const chunk of chunks) expect(JSON.stringify(chunk).length).toBeLessThan(400 * 1024);
    for (const append of appends) expect(JSON.stringify(append).length).toBeLessThan(1024 * 1024);
    expect(chunks.length).toBeGreaterThan(1);
    expect(job.row_count).toBe(1000);
  });

  it('on the embedded log (EMBEDDED_APPEND_BYTES) an append holds 8 whole chunks where Kafka\'s bound holds 3', async () => {
    const { jobs } = setup();
    // ~130 characters of row JSON, as the bench's rows: a 2,000-row chunk is cut at 256 KB.
    const row = (i: number): PersonInput => ({ id: `p${i}`, name: `Person ${i}`.padEnd(60, 'x'), address: `Vej ${i}, 8000 Aarhus C`.padEnd(40, 'y') });
    const chunksPerAppend = async (maxAppendBytes?: number): Promise<number[]> => {
      const appends: PipelineEvent[][] = [];
      const intake = createJobIntake({
        jobs, events: { publish: async (events) => void appends.push(Array.isArray(events) ? events : [events]) },
        currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: tempDir(),
        ...(maxAppendBytes ? { maxAppendBytes } : {}),
      });
      const job = await intake.createJob({ ...spec(), people: batches(Array.from({ length: 40_000 }, (_, i) => row(i)), 1000) });
      expect(job.row_count).toBe(40_000);
      return appends.map((append) => append.filter((e) => e.type === 'RowsChunk').length).filter((n) => n > 0);
    };
    const kafka = await chunksPerAppend();
    const embedded = await chunksPerAppend(EMBEDDED_APPEND_BYTES);
    expect(kafka.reduce((a, b) => a + b)).toBe(embedded.reduce((a, b) => a + b));
    expect(Math.max(...kafka)).toBe(3);
    expect(embedded.slice(0, -1).every((n) => n === 8), embedded.join(' ')).toBe(true);
  });

  it('a publish that fails after the record exists fails the job instead of leaving it queued', async () => {
    const { intake, jobs } = setup({ failPublishAt: 2 });
    await expect(intake.createJob({ ...spec(), people: batches(people) })).rejects.toThrow('log down');
    const [job] = await jobs.listJobsDueForDeletion('9999-01-01T00:00:00.000Z', 100);
    expect(job).toMatchObject({ status: 'failed', error: 'intake_failed', finished_at: NOW.toISOString() });
    expect(await jobs.listStalledIntakes('9999-01-01T00:00:00.000Z', 100)).toEqual([]);
  });

  it('keeps several appends in flight, never more than MAX_APPENDS_IN_FLIGHT, and sends RowsComplete only once every row append is durable', async () => {
    const { jobs } = setup();
    // Each append is acknowledged only when the test says so: what waits is what is in flight.
    const waiting: Array<{ events: PipelineEvent[]; ack: () => void }> = [];
    const acknowledged: PipelineEvent[] = [];
    let mostInFlight = 0;
    const intake = createJobIntake({
      jobs,
      events: {
        publish: (e) => new Promise<void>((resolve) => {
          const events = Array.isArray(e) ? e : [e];
          waiting.push({ events, ack: () => { acknowledged.push(...events); resolve(); } });
          mostInFlight = Math.max(mostInFlight, waiting.length);
        }),
      },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: tempDir(),
      chunkRows: 1, clock: () => NOW,
    });
    // 100 one-row chunks: 13 appends of at most 8 chunks.
    const many = Array.from({ length: 100 }, (_, i) => ({ ...people[i % people.length], id: `r${i}` }));
    const created = intake.createJob({ ...spec(), people: batches(many, 10) });
    let ended = false;
    void created.finally(() => { ended = true; });
    const chunksIn = (list: Array<{ events: PipelineEvent[] }>) => list.flatMap((w) => w.events).filter((e) => e.type === 'RowsChunk').length;
    for (;;) {
      await until('an append in flight or the job answered', () => waiting.length > 0 || ended, 60_000, 0);
      if (waiting.length === 0) break;
      // The publisher runs on until it must wait: its window is full, every row is sent, or it
      // waits for a JobCreated or RowsComplete (never sent beside row appends).
      await until('the publisher waiting', () => waiting.length >= MAX_APPENDS_IN_FLIGHT
        || chunksIn(waiting) + acknowledged.filter((e) => e.type === 'RowsChunk').length === 100
        || waiting.some((w) => w.events.some((e) => e.type !== 'RowsChunk')), 60_000, 0);
      const next = waiting.shift()!;
      if (next.events.some((e) => e.type === 'RowsComplete')) {
        expect(acknowledged.filter((e) => e.type === 'RowsChunk'), 'every chunk durable before RowsComplete is sent').toHaveLength(100);
      }
      next.ack();
    }
    const job = await created;
    expect(mostInFlight, 'appends overlap, up to the bound and no further').toBe(MAX_APPENDS_IN_FLIGHT);
    expect(acknowledged.map((e) => e.type)).toEqual(['JobCreated', ...Array(100).fill('RowsChunk'), 'RowsComplete']);
    expect(acknowledged.filter((e) => e.type === 'RowsChunk').flatMap((e) => (e.value as { rows: Array<{ row: number }> }).rows.map((r) => r.row)))
      .toEqual(many.map((_, i) => i));
    expect(await jobs.listStalledIntakes('9999-01-01T00:00:00.000Z', 100), 'intake closed').toEqual([]);
    expect(job.row_count).toBe(100);
  });

  it('an append that fails while others are in flight fails the job once those ended, and RowsComplete is never sent', async () => {
    const { jobs } = setup();
    const sent: PipelineEvent[][] = [];
    let appends = 0;
    let inFlight = 0;
    let inFlightAtFailure = -1;
    const intake = createJobIntake({
      jobs,
      events: {
        publish: async (e) => {
          const events = Array.isArray(e) ? e : [e];
          sent.push(events);
          if (!events.some((event) => event.type === 'RowsChunk')) return;
          const append = ++appends;
          inFlight += 1;
          try {
            await turnOver();
            if (append === 3) throw new Error('log down');
          } finally {
            inFlight -= 1;
          }
        },
      },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: tempDir(),
      chunkRows: 1, clock: () => NOW,
    });
    const many = Array.from({ length: 100 }, (_, i) => ({ ...people[i % people.length], id: `r${i}` }));
    await expect(intake.createJob({ ...spec(), people: batches(many, 10) }).catch((error: unknown) => {
      inFlightAtFailure = inFlight;
      throw error;
    })).rejects.toThrow('log down');
    expect(inFlightAtFailure, 'no append still in flight when the error is handled').toBe(0);
    expect(appends, 'appends went on while the third was in flight, none after its failure was seen').toBeLessThan(13);
    expect(sent.flat().filter((e) => e.type === 'RowsComplete')).toEqual([]);
    const [job] = await jobs.listJobsDueForDeletion('9999-01-01T00:00:00.000Z', 100);
    expect(job).toMatchObject({ status: 'failed', error: 'intake_failed' });
  });

  it('touches the intake while publishing and closes it once RowsComplete is on the log', async () => {
    const { jobs } = setup();
    const touches: Array<{ at: string; closed: boolean }> = [];
    let now = NOW.getTime();
    const intake = createJobIntake({
      jobs: { ...jobs, touchIntake: async (id, mark) => { touches.push(mark); await jobs.touchIntake(id, mark); } },
      events: { publish: async () => undefined },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: tempDir(),
      chunkRows: 1, touchIntervalMs: 1000,
      clock: () => new Date((now += 700)), // every reading of the clock is 700 ms later
    });
    const many = Array.from({ length: 40 }, (_, i) => people[i % people.length]);
    const job = await intake.createJob({ ...spec(), people: batches(many) });
    // JobCreated, 5 appends of 8 chunks, RowsComplete: 7 publishes, a touch after at most every other one.
    const open = touches.filter((t) => !t.closed);
    expect(open.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < open.length; i++) expect(Date.parse(open[i].at) - Date.parse(open[i - 1].at)).toBeGreaterThanOrEqual(1000);
    expect(touches.at(-1)?.closed).toBe(true);
    expect(touches.filter((t) => t.closed)).toHaveLength(1);
    expect(await jobs.listStalledIntakes('9999-01-01T00:00:00.000Z', 100)).toEqual([]);
    expect((await jobs.getJobById(job.id))?.status).toBe('queued');
  });

  it('a process that stops mid-publish leaves the job queued with an open intake, for the sweep to find', async () => {
    const { jobs } = setup();
    let calls = 0;
    const intake = createJobIntake({
      jobs,
      // The third append never returns: the process is as good as killed.
      events: { publish: () => (++calls >= 3 ? new Promise<void>(() => undefined) : Promise.resolve()) },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: tempDir(),
      chunkRows: 1, clock: () => NOW,
    });
    const spooled = await intake.spool(batches(Array.from({ length: 40 }, (_, i) => people[i % people.length])));
    onTestFinished(() => spooled.discard());
    void intake.commit(spooled, spec());
    await until('three publish calls', () => calls >= 3, 30_000, 1);
    const stalled = await jobs.listStalledIntakes(new Date(NOW.getTime() + 1).toISOString(), 100);
    expect(stalled.map((j) => [j.status, j.row_count])).toEqual([['queued', 40]]);
    expect(await jobs.listStalledIntakes(NOW.toISOString(), 100)).toEqual([]); // last seen at NOW: not before NOW
  });
});

describe('overlapped intake (spoolAndPublish + seal)', () => {
  function overlapped(options: Parameters<typeof setup>[0] = {}) {
    const base = setup(options);
    const intake = createJobIntake({
      jobs: base.jobs, events: { publish: async (e) => void base.published.push(...(Array.isArray(e) ? e : [e])) },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: base.spoolDir,
      chunkRows: 2, clock: () => NOW, overlapAfterRows: 2,
    });
    return { ...base, intake };
  }
  const all = '9999-01-01T00:00:00.000Z';

  it('publishes rows while the input is still read; seal completes with the final count and hash', async () => {
    const { intake, jobs, published, spoolDir } = overlapped();
    let seenBeforeEnd = 0;
    // 40 rows: appends of 8 two-row chunks go out while later rows are still being read.
    const many = Array.from({ length: 40 }, (_, i) => ({ ...people[i % 5], id: `m${i}` }));
    async function* watched() {
      for await (const batch of batches(many, 2)) yield batch;
      seenBeforeEnd = published.filter((e) => e.type === 'RowsChunk').length;
    }
    const streamed = await intake.spoolAndPublish(watched(), () => spec());
    expect(seenBeforeEnd, 'chunks were on the log before the input ended').toBeGreaterThanOrEqual(16);
    expect(streamed.early?.job.status).toBe('queued');
    expect((await jobs.getJobById(streamed.early!.job.id))?.input_sha256, 'not completable before seal').toBeNull();
    const job = await intake.seal(streamed, spec({ inputSha256: 'ef'.repeat(32) }));
    await streamed.discard();
    expect(job).toMatchObject({ id: streamed.early!.job.id, row_count: 40, input_sha256: 'ef'.repeat(32) });
    expect(await jobs.getJobById(job.id)).toMatchObject({ row_count: 40, input_sha256: 'ef'.repeat(32), status: 'queued' });
    expect(published.map((e) => e.type)).toEqual(['JobCreated', ...Array(20).fill('RowsChunk'), 'RowsComplete']);
    const rows = published.filter((e) => e.type === 'RowsChunk').flatMap((e) => (e.value as { rows: Array<{ row: number; person: { id: string } }> }).rows);
    expect(rows.map((r) => r.row)).toEqual(many.map((_, i) => i));
    expect(rows.map((r) => r.person.id)).toEqual(many.map((p) => p.id));
    expect(published.at(-1)?.value).toMatchObject({ row_count: 40, chunk_count: 20, input_sha256: 'ef'.repeat(32) });
    expect(await jobs.listStalledIntakes(all, 100)).toEqual([]);
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('a RowsComplete that cannot be published fails the job at seal (the same path as a whole-body publish)', async () => {
    const base = setup();
    const intake = createJobIntake({
      jobs: base.jobs,
      events: {
        publish: async (e) => {
          const events = Array.isArray(e) ? e : [e];
          if (events.some((event) => event.type === 'RowsComplete')) throw new Error('log down');
          base.published.push(...events);
        },
      },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: base.spoolDir,
      chunkRows: 2, clock: () => NOW, overlapAfterRows: 2,
    });
    const streamed = await intake.spoolAndPublish(batches(people, 2), () => spec());
    await expect(intake.seal(streamed, spec({ inputSha256: 'ef'.repeat(32) }))).rejects.toThrow('log down');
    await streamed.discard();
    expect(await base.jobs.getJobById(streamed.early!.job.id)).toMatchObject({ status: 'failed', error: 'intake_failed', finished_at: NOW.toISOString() });
    expect(await base.jobs.listStalledIntakes(all, 100)).toEqual([]);
  });

  it('a job failed while its body still arrived keeps the row count and hash its callback showed; seal leaves them', async () => {
    const { intake, jobs } = overlapped();
    const streamed = await intake.spoolAndPublish(batches(people, 2), () => spec());
    const id = streamed.early!.job.id;
    const failed = await jobs.updateJob(id, { status: 'failed', error: 'unreadable_message', finished_at: NOW.toISOString() });
    await intake.seal(streamed, spec({ inputSha256: 'ef'.repeat(32) }));
    await streamed.discard();
    expect(await jobs.getJobById(id)).toEqual(failed);
    expect(failed).toMatchObject({ row_count: 0, input_sha256: null });
  });

  it('a bad row after publishing began: the job is abandoned (deleted, intake closed), nothing stays visible', async () => {
    const { intake, jobs, published, spoolDir } = overlapped();
    await expect(intake.spoolAndPublish(batches(people, 2, 4), () => spec())).rejects.toThrow('bad row');
    const created = published.find((e) => e.type === 'JobCreated')?.value as { job_id: string };
    expect(created, 'publishing had begun').toBeDefined();
    expect(await jobs.getJobById(created.job_id)).toMatchObject({ status: 'deleted', error: 'intake_refused', preview: [] });
    expect(await jobs.listJobsDueForDeletion(all, 100)).toEqual([]);
    expect(await jobs.listStalledIntakes(all, 100)).toEqual([]);
    expect(published.filter((e) => e.type === 'RowsComplete')).toEqual([]);
    expect(published.at(-1)).toMatchObject({ type: 'JobStateChanged', value: { job_id: created.job_id, status: 'deleted' } });
    // Its results are never kept (a deleted job stores none).
    await jobs.putResults(created.job_id, NOW.toISOString(), [{ row: 0, result: { status: 'allowed', match: { level: 0 } } as never, cells: null }]);
    expect((await jobs.countResults(created.job_id)).processed).toBe(0);
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('a field that came after the people changes the job: the early one is abandoned and the job committed from the spool', async () => {
    const { intake, jobs, published } = overlapped();
    const streamed = await intake.spoolAndPublish(batches(people, 2), () => spec());
    const job = await intake.seal(streamed, spec({ policy: 'strict' }));
    await streamed.discard();
    expect(job.id).not.toBe(streamed.early!.job.id);
    expect(job).toMatchObject({ row_count: 5, options: { policy: 'strict' } });
    expect((await jobs.getJobById(streamed.early!.job.id))?.status).toBe('deleted');
    const chunksOfNew = published.filter((e) => e.type === 'RowsChunk' && (e.value as { job_id: string }).job_id === job.id);
    expect(chunksOfNew.every((e) => (e.value as { policy: string }).policy === 'strict')).toBe(true);
    expect(chunksOfNew.flatMap((e) => (e.value as { rows: unknown[] }).rows)).toHaveLength(5);
  });

  it('below the threshold nothing is published before seal (a small input behaves as spool + commit)', async () => {
    const base = setup();
    const intake = createJobIntake({
      jobs: base.jobs, events: { publish: async (e) => void base.published.push(...(Array.isArray(e) ? e : [e])) },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: base.spoolDir, overlapAfterRows: 100,
    });
    const streamed = await intake.spoolAndPublish(batches(people, 2), () => spec());
    expect(streamed.early).toBeNull();
    expect(base.published).toEqual([]);
    const job = await intake.seal(streamed, spec());
    await streamed.discard();
    expect(job.row_count).toBe(5);
  });
});

describe('drafts and file rows', () => {
  const fileRows = people.map((person, i) => ({ person, cells: [`c${i}`, null, `=x${i}`] }));
  async function* rowBatches() {
    yield fileRows.slice(0, 3);
    yield fileRows.slice(3);
  }

  it('a draft is created with its preview and nothing published; no intake is open', async () => {
    const { intake, jobs, published } = setup();
    const preview = [{ cells: ['a', null], result: { id: null } as never }];
    const draft = await intake.createDraft(
      spec({ source: 'upload', filename: 'x.csv', file_format: 'csv', columns: ['Navn', 'Adresse'], column_mapping: { name: 0 } }),
      { rowCount: 5, preview, inputSha256: 'cd'.repeat(32) },
    );
    expect(draft).toMatchObject({
      status: 'draft', row_count: 5, list_version: LIVE, price: null, filename: 'x.csv', file_format: 'csv',
      columns: ['Navn', 'Adresse'], column_mapping: { name: 0 }, preview, input_sha256: 'cd'.repeat(32),
      options: { stop_level: 2, retention_days: 14, policy: 'standard' },
    });
    expect(await jobs.getJobById(draft.id)).toEqual(draft);
    expect(published).toEqual([]);
    expect(await jobs.listStalledIntakes('9999-01-01T00:00:00.000Z', 100)).toEqual([]);
  });

  it('starting a draft pins the version, queues it and publishes its rows with their cells', async () => {
    const { intake, jobs, published, spoolDir } = setup();
    const draft = await intake.createDraft(spec({ source: 'upload', column_mapping: { name: 0 } }), {
      rowCount: 5, preview: [], inputSha256: 'cd'.repeat(32),
    });
    const spooled = await intake.spoolRows(rowBatches());
    const started = await intake.startDraft(draft, spooled, spec({ source: 'upload', column_mapping: { name: 1 }, options: { stop_level: 3 } }));
    await spooled.discard();
    expect(started).toMatchObject({ status: 'queued', list_version: LIVE, row_count: 5, column_mapping: { name: 1 }, options: { stop_level: 3 } });
    expect(await jobs.getJobById(draft.id)).toMatchObject({ status: 'queued', input_sha256: 'cd'.repeat(32) });
    const rows = published.filter((e) => e.type === 'RowsChunk').flatMap((e) => (e.value as { rows: Array<{ row: number; cells: unknown }> }).rows);
    expect(rows.map((r) => [r.row, r.cells])).toEqual(fileRows.map((r, i) => [i, r.cells]));
    expect(published.at(-1)).toMatchObject({ type: 'RowsComplete', value: { row_count: 5, input_sha256: 'cd'.repeat(32) } });
    expect(readdirSync(spoolDir)).toEqual([]);
    // The intake was opened and closed: the sweep never fails it.
    expect(await jobs.listStalledIntakes('9999-01-01T00:00:00.000Z', 100)).toEqual([]);
  });
});

describe('spool', () => {
  it('reads back what was written, in order and in batches, and hashes the rows', async () => {
    const dir = tempDir();
    const spooled = await spoolPeople(batches(people, 3), dir);
    expect(spooled.rowCount).toBe(5);
    expect(spooled.sha256).toMatch(/^[0-9a-f]{64}$/);
    const read: PersonInput[][] = [];
    for await (const batch of spooled.read({ maxRows: 4 })) read.push(batch.people);
    expect(read.map((b) => b.length)).toEqual([4, 1]);
    expect(read.flat()).toEqual(people);
    // A byte bound cuts batches earlier; a single person larger than it still comes alone.
    const lineLength = JSON.stringify(people[0]).length;
    const bySize: number[] = [];
    for await (const batch of spooled.read({ maxRows: 100, maxBytes: lineLength * 2 })) bySize.push(batch.people.length);
    expect(bySize).toEqual([2, 2, 1]);
    const tiny: number[] = [];
    for await (const batch of spooled.read({ maxRows: 100, maxBytes: 1 })) tiny.push(batch.people.length);
    expect(tiny).toEqual([1, 1, 1, 1, 1]);
    await spooled.discard();
    await spooled.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('spooled without hashing, gives the same rows hash from the file when asked', async () => {
    const dir = tempDir();
    const hashed = await spoolPeople(batches(people, 2), dir);
    const unhashed = await spoolRows(batches(people, 3), dir, undefined, { hashRows: false });
    expect(unhashed.sha256).toBe('');
    expect(await unhashed.rowsSha256()).toBe(hashed.sha256);
    expect(await hashed.rowsSha256()).toBe(hashed.sha256);
    const read: PersonInput[] = [];
    for await (const batch of unhashed.read({ maxRows: 10 })) read.push(...batch.people);
    expect(read).toEqual(people);
    await hashed.discard();
    await unhashed.discard();
  });
});

describe('body spool (spoolBodyAndPublish)', () => {
  const odd: PersonInput[] = [
    { id: 'a', name: 'Søren "Q" Ærø', address: 'Vej\\1\n2\u0001, 8000 Aarhus C' },
    {},
    { name: '\u{1F600} smile', city: 'Nærum' },
    ...Array.from({ length: 9 }, (_, i) => ({ ...people[i % 5], id: `b${i}` })),
  ];
  const body = (list: PersonInput[], after = '') => Buffer.from(`{"people":${JSON.stringify(list)}${after}}`);
  async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  const readJson = (chunks: AsyncIterable<Uint8Array>) => readPeopleFromJson(chunks, { maxPeople: 1000 });

  it('jsonTextLength is JSON.stringify(person).length without making the string', () => {
    for (const person of [...odd, { id: 'x', floor: undefined }, { n: 'lone \ud800' } as PersonInput]) {
      expect(jsonTextLength(person)).toBe(JSON.stringify(person).length);
    }
  });

  it('hands on the rows and sizes the row spool would, and reads the same people back from the body file', async () => {
    const dir = tempDir();
    const handed: SpoolBatch[] = [];
    const spooled = await spoolBody(chunked(body(odd), 7), readJson, dir, async (batch) => void handed.push(batch));
    expect(spooled.rowCount).toBe(odd.length);
    expect(handed.flatMap((b) => b.people)).toEqual(odd);
    expect(handed.flatMap((b) => b.sizes)).toEqual(odd.map((p) => JSON.stringify(p).length));
    expect(handed.reduce((n, b) => n + b.bytes, 0)).toBe(odd.reduce((n, p) => n + JSON.stringify(p).length + 1, 0));
    const rowSpool = await spoolPeople(batches(odd, 4), dir);
    const fromRows: SpoolBatch[] = [];
    for await (const batch of rowSpool.read({ maxRows: 5, maxBytes: 150 })) fromRows.push(batch);
    const fromBody: SpoolBatch[] = [];
    for await (const batch of spooled.read({ maxRows: 5, maxBytes: 150 })) fromBody.push(batch);
    expect(fromBody).toEqual(fromRows);
    expect(await spooled.rowsSha256()).toBe(rowSpool.sha256);
    await rowSpool.discard();
    await spooled.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a field after the people: the early job is abandoned and the job committed from the body file', async () => {
    const base = setup();
    const intake = createJobIntake({
      jobs: base.jobs, events: { publish: async (e) => void base.published.push(...(Array.isArray(e) ? e : [e])) },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: base.spoolDir,
      chunkRows: 2, clock: () => NOW, overlapAfterRows: 2,
    });
    const streamed = await intake.spoolBodyAndPublish(chunked(body(odd, ',"external_ref":"late"'), 5), readJson, () => spec());
    expect(streamed.early?.state).toBe('open');
    const job = await intake.seal(streamed, spec({ external_ref: 'late', inputSha256: 'ef'.repeat(32) }));
    await streamed.discard();
    expect(job.id).not.toBe(streamed.early!.job.id);
    expect(job).toMatchObject({ row_count: odd.length, external_ref: 'late', input_sha256: 'ef'.repeat(32) });
    const chunks = base.published.filter((e) => e.type === 'RowsChunk' && (e.value as { job_id: string }).job_id === job.id);
    const rows = chunks.flatMap((e) => (e.value as { rows: Array<{ row: number; person: { id: string | null } }> }).rows);
    expect(rows.map((r) => r.row)).toEqual(odd.map((_, i) => i));
    expect(rows.map((r) => r.person.id)).toEqual(odd.map((p) => p.id ?? null));
    expect(readdirSync(base.spoolDir)).toEqual([]);
  });

  it('a bad row: nothing is kept, the spool file is gone and the reader\'s error passes on', async () => {
    const dir = tempDir();
    const bad = Buffer.from(`{"people":[${JSON.stringify(people[0])},{"name":7}]}`);
    await expect(spoolBody(chunked(bad, 9), readJson, dir, async () => undefined)).rejects.toMatchObject({ code: 'not_a_string' });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('file rows not spooled once the job is open (spoolAndPublish fixedSpec)', () => {
  const fileRows: SpoolRow[] = Array.from({ length: 12 }, (_, i) => ({
    person: { ...people[i % 5], id: `f${i}` },
    cells: i % 4 === 3 ? null : [`f${i}`, 'Søren "Q"', null, 'a\\b\u0002', ''],
  }));
  async function* rowBatches(size: number): AsyncGenerator<SpoolRow[]> {
    for (let i = 0; i < fileRows.length; i += size) yield fileRows.slice(i, i + size);
  }
  function intakeOf(base: ReturnType<typeof setup>) {
    return createJobIntake({
      jobs: base.jobs, events: { publish: async (e) => void base.published.push(...(Array.isArray(e) ? e : [e])) },
      currentListVersion: () => LIVE, checkCallbackUrl: async () => undefined, logger: silentLogger(), spoolDir: base.spoolDir,
      chunkRows: 2, clock: () => NOW, overlapAfterRows: 4,
    });
  }
  const rowsOf = (published: PipelineEvent[]) => published.filter((e) => e.type === 'RowsChunk')
    .map((e) => (e.value as { rows: Array<{ row: number; person: { id: string }; cells: unknown }> }).rows.map((r) => [r.row, r.person.id, r.cells]));

  it('cellsTextLength is JSON.stringify(cells).length', () => {
    for (const row of fileRows) if (row.cells) expect(cellsTextLength(row.cells)).toBe(JSON.stringify(row.cells).length);
    expect(cellsTextLength([])).toBe(2);
  });

  it('publishes the same chunks as a spool that keeps every row, and keeps only the rows before the opening', async () => {
    const kept = setup();
    const keptStream = await intakeOf(kept).spoolAndPublish(rowBatches(2), () => spec());
    const unkept = setup();
    const streamed = await intakeOf(unkept).spoolAndPublish(rowBatches(2), () => spec(), { fixedSpec: true });
    expect(streamed.rowCount).toBe(fileRows.length);
    await expect(streamed.read({ maxRows: 100 }).next()).rejects.toBeInstanceOf(SpoolNotKeptError);
    const spoolFile = readdirSync(unkept.spoolDir)[0];
    const lines = readFileSync(join(unkept.spoolDir, spoolFile), 'utf8').split('\n').filter(Boolean);
    expect(lines, 'the rows up to the opening (overlapAfterRows) only').toHaveLength(4);
    await intakeOf(kept).seal(keptStream, spec({ inputSha256: 'ef'.repeat(32) }));
    const job = await intakeOf(unkept).seal(streamed, spec({ inputSha256: 'ef'.repeat(32) }));
    expect(job.row_count).toBe(fileRows.length);
    expect(rowsOf(unkept.published)).toEqual(rowsOf(kept.published));
    expect(rowsOf(unkept.published).flat().map((r) => r[2])).toEqual(fileRows.map((r) => r.cells));
    await keptStream.discard();
    await streamed.discard();
  });

  it('hands on the batches (people, cells, sizes, bytes) a spool that writes them does', async () => {
    const dir = tempDir();
    const written: SpoolBatch[] = [];
    const handed: SpoolBatch[] = [];
    const all = await spoolRows(rowBatches(3), dir, async (b) => void written.push(b));
    const none = await spoolRows(rowBatches(3), dir, async (b) => void handed.push(b), { keep: () => false });
    expect(handed).toEqual(written);
    expect(none.rowCount).toBe(all.rowCount);
    await expect(none.rowsSha256()).rejects.toBeInstanceOf(SpoolNotKeptError);
    await all.discard();
    await none.discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a seal under other fields cannot commit from rows that were not kept: it fails loudly', async () => {
    const base = setup();
    const intake = intakeOf(base);
    const streamed = await intake.spoolAndPublish(rowBatches(2), () => spec(), { fixedSpec: true });
    await expect(intake.seal(streamed, spec({ external_ref: 'other', inputSha256: 'ef'.repeat(32) }))).rejects.toBeInstanceOf(SpoolNotKeptError);
    await streamed.discard();
  });
});

describe('spool line separators', () => {
  it('reads back people whose fields hold U+2028 and U+2029 (JSON leaves them unescaped)', async () => {
    const dir = tempDir();
    const odd: PersonInput[] = [
      { id: '1', name: 'a\u2028b', address: 'c\u2029d\re' },
      { id: '2', name: '\u2028\u2029' },
    ];
    const spooled = await spoolPeople(batches(odd, 1), dir);
    const read: PersonInput[] = [];
    for await (const batch of spooled.read({ maxRows: 10 })) read.push(...batch.people);
    expect(read).toEqual(odd);
    await spooled.discard();
  });
});

describe('stale spool files', () => {
  it('removes job spool files older than the limit and nothing else', async () => {
    const dir = tempDir();
    const old = join(dir, 'job-00000000-0000-4000-8000-000000000001.ndjson');
    const fresh = join(dir, 'job-00000000-0000-4000-8000-000000000002.ndjson');
    const other = join(dir, 'notes.txt');
    for (const file of [old, fresh, other]) writeFileSync(file, '{}\n');
    const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    utimesSync(other, twoHoursAgo, twoHoursAgo);
    expect(await removeStaleSpoolFiles(dir)).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['job-00000000-0000-4000-8000-000000000002.ndjson', 'notes.txt']);
    expect(await removeStaleSpoolFiles(join(dir, 'missing'))).toBe(0);
  });

  it('names files after their writer, and removes those of a dead writer on this machine at once', async () => {
    const dir = tempDir();
    const spooled = await spoolPeople(batches(people), dir);
    onTestFinished(() => spooled.discard());
    expect(readdirSync(dir)).toEqual([expect.stringMatching(new RegExp(`^job-${spoolHost().replaceAll('.', '\\.')}-${process.pid}-[0-9a-f-]{36}\\.ndjson$`))]);
    const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    const names = {
      dead: spoolFileName(id(1), { host: 'box-1', pid: 111 }),
      alive: spoolFileName(id(2), { host: 'box-1', pid: 222 }),
      reused: spoolFileName(id(3), { host: 'box-1', pid: 222 }),
      otherFresh: spoolFileName(id(4), { host: 'box-2', pid: 111 }),
      otherOld: spoolFileName(id(5), { host: 'box-2', pid: 111 }),
    };
    for (const name of Object.values(names)) writeFileSync(join(dir, name), '{}\n');
    const ago = (ms: number) => (Date.now() - ms) / 1000;
    utimesSync(join(dir, names.reused), ago(25 * 3600_000), ago(25 * 3600_000));
    utimesSync(join(dir, names.otherOld), ago(20_000), ago(20_000));
    const removed = await removeStaleSpoolFiles(dir, { olderThanMs: 10_000, host: 'box-1', isAlive: (pid) => pid === 222 });
    expect(removed).toBe(3);
    expect(readdirSync(dir).filter((n) => Object.values(names).includes(n)).sort()).toEqual([names.alive, names.otherFresh].sort());
    // With the real host and pid check: box-1 and box-2 are other machines now, whose files go by
    // age; this process runs, so its own file stays however old.
    expect(await removeStaleSpoolFiles(dir, { olderThanMs: 0, now: Date.now() + 60_000 })).toBe(2);
    expect(readdirSync(dir)).toHaveLength(1);
  });
});
