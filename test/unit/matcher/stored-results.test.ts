/**
 * The embedded matcher stores its own results (docs/architecture.md "Matcher"): what it stores
 * straight from the results it made must be byte for byte what the projection stored from the
 * same chunk after it went through checks.results (sealed, slim form, decoded). Real domain
 * answers of every shape (person matches of every level, company and phone checks, a private
 * list, test mode, file rows with cells), real schemas, key stores and embedded job stores: the
 * stored records, every results page as served, the result file's verdicts and the done job's
 * counts and preview.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyLevelCounts } from '../../../services/domain/check-job.ts';
import {
  createCompanyIndexBuilder, createPhoneIndexBuilder, TEST_LIST_VERSION, type CompanyIndex, type CompanyRecord, type DirectoryEntry, type PhoneIndex,
} from '../../../services/domain/index.ts';
import type { ListEntry } from '../../../services/domain/types.ts';
import { createMatcherCore, type MatcherCoreDeps } from '../../../services/matcher/matcher.ts';
import { createMatcher } from '../../../services/matcher/index.ts';
import { deadLetterTopicOf, pipelineTopics, TOPIC_NAMES } from '../../../infra/topics.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import type { EventLog } from '../../../services/platform/log/port.ts';
import { PermanentError } from '../../../services/platform/errors.ts';
import { UNPROCESSABLE_MESSAGE } from '../../../services/pipeline/poison.ts';
import {
  createPipelineEvents, toAvroPerson, type EventMessage, type PipelineEvent, type PipelineEvents, type RowsChunkEvent,
} from '../../../services/pipeline/events.ts';
import { createJobDataKeys } from '../../../services/platform/keys/data-keys.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { createEmbeddedListStore } from '../../../services/platform/store/embedded/lists.ts';
import { createEmbeddedRegisterStore } from '../../../services/platform/store/embedded/registers.ts';
import type { JobRecord, JobStore } from '../../../services/platform/store/jobs-port.ts';
import type { CallbackSender } from '../../../services/projection/callbacks/index.ts';
import { createProjection, type Projection } from '../../../services/projection/projection.ts';
import { createResultsWriter, type ResultsWriter } from '../../../services/projection/index.ts';
import { createActiveRegister } from '../../../services/registers/companies/active-register.ts';
import { createActiveListIndex } from '../../../services/registers/lists/active-index.ts';
import { createPrivateListIndexes } from '../../../services/registers/lists/private-indexes.ts';
import { createRng, generateListEntries, generatePeople, variantOf } from '../../../services/synthetic/index.ts';
import { DIRECTORY_ENTRIES, LIST_ENTRIES, mixedRows, mixedTestRows, REGISTER_COMPANIES, REGISTER_ROWS, seedListVersion, seedRegisterVersion } from '../../support/pipeline.ts';

const registry = createStaticSchemaRegistry();
const noCallbacks: CallbackSender = {
  attemptDelivery: async () => { throw new Error('no callbacks in this test'); },
  deliver: async () => { throw new Error('no callbacks in this test'); },
};

/** The references (lists, registers, keys) both ways read: one database, so both check alike. */
async function references() {
  const db = openEmbeddedDatabase(':memory:');
  const lists = createEmbeddedListStore(db);
  const registerStore = createEmbeddedRegisterStore(db);
  const entries = [...generateListEntries(600, 'stored-results')];
  // LIST_ENTRIES: the members mixedRows and REGISTER_ROWS are checked against.
  const national = await seedListVersion(lists, [...entries, ...LIST_ENTRIES]);
  const orgId = randomUUID();
  // The organisation's private list: entries the national list does not hold, so it decides rows.
  const privateEntries: ListEntry[] = [...generateListEntries(200, 'stored-results-private')];
  const privateId = randomUUID();
  await lists.createListVersion({
    id: privateId, source: 'customer', org_id: orgId, published_on: '2026-11-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0,
  });
  await lists.appendListEntries(privateId, privateEntries);
  await lists.sealListVersion(privateId);
  await lists.activateListVersion(privateId, new Date().toISOString());
  const companies = await seedRegisterVersion(registerStore, 'companies', REGISTER_COMPANIES);
  const phones = await seedRegisterVersion(registerStore, 'phones', DIRECTORY_ENTRIES);
  const dataKeys = createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db), cacheMs: 0 });
  const matcherDeps: Omit<MatcherCoreDeps, 'events'> = {
    logger: silentLogger(),
    activeIndex: createActiveListIndex({ listStore: lists, logger: silentLogger() }),
    privateLists: createPrivateListIndexes({ listStore: lists, logger: silentLogger(), maxEntries: 10_000 }),
    registers: {
      companies: createActiveRegister<CompanyRecord, CompanyIndex>({ store: registerStore, kind: 'companies', logger: silentLogger(), createBuilder: createCompanyIndexBuilder }),
      phones: createActiveRegister<DirectoryEntry, PhoneIndex>({ store: registerStore, kind: 'phones', logger: silentLogger(), createBuilder: createPhoneIndexBuilder }),
    },
  };
  return { entries, privateEntries, national, privateId, orgId, companies, phones, dataKeys, matcherDeps };
}

type References = Awaited<ReturnType<typeof references>>;

/** The chunks of one job: every shape a job's rows take, in chunks of up to 60 rows. */
function jobChunks(refs: References, jobId: string): RowsChunkEvent[] {
  const rng = createRng('stored-results:variants');
  const people = [
    ...refs.entries.filter((_, i) => i % 5 === 0).map(({ previous: _p, ...entry }, i) => ({ ...variantOf(entry, rng), id: `member-${i}` })),
    ...refs.privateEntries.slice(0, 30).map(({ previous: _p, ...entry }, i) => ({ ...entry, id: `private-${i}` })),
    ...generatePeople(80, 'stored-results'),
    ...mixedRows(16).map((r) => r.person),
    { id: 'no-name', address: 'Vestergade 3, 5000 Odense' }, { id: 'no-address', name: 'Anne Hansen' }, {},
  ];
  const base: Omit<RowsChunkEvent, 'chunk' | 'rows'> = {
    job_id: jobId, org_id: refs.orgId, mode: 'live', list_version_id: refs.national.id, policy: 'standard', stop_level: 1, locale: 'da',
    private_list_version_id: null, check_people: true, check_companies: false, check_phones: false, company_register_version_id: null,
    phone_directory_version_id: null, address_register_version_id: null,
  };
  const shapes: Array<{ overrides: Partial<RowsChunkEvent>; persons: RowsChunkEvent['rows'][number]['person'][]; cells?: boolean }> = [
    { overrides: {}, persons: people.map(toAvroPerson) },
    { overrides: { locale: 'en', policy: 'strict', stop_level: 3 }, persons: people.slice(0, 60).map(toAvroPerson), cells: true },
    { overrides: { private_list_version_id: refs.privateId }, persons: people.map(toAvroPerson) },
    {
      overrides: { check_people: false, check_companies: true, check_phones: true, company_register_version_id: refs.companies.id, phone_directory_version_id: refs.phones.id },
      persons: REGISTER_ROWS.map((r) => toAvroPerson(r.row)),
    },
    {
      overrides: { check_companies: true, check_phones: true, company_register_version_id: refs.companies.id, phone_directory_version_id: refs.phones.id },
      persons: [...REGISTER_ROWS.map((r) => toAvroPerson(r.row)), ...people.slice(0, 20).map(toAvroPerson)],
    },
    {
      overrides: { mode: 'test', list_version_id: null, check_companies: true, check_phones: true },
      persons: [...mixedTestRows(16).map((r) => r.person), { cvr: '00000042' }, { cvr: '25313763' }, { phone: '12340000' }, { phone: '12341111' }, { phone: '12345678' }].map(toAvroPerson),
    },
  ];
  const chunks: RowsChunkEvent[] = [];
  let row = 0;
  for (const shape of shapes) {
    for (let at = 0; at < shape.persons.length; at += 60) {
      const persons = shape.persons.slice(at, at + 60);
      chunks.push({
        ...base, ...shape.overrides, chunk: chunks.length,
        rows: persons.map((person, i) => ({ row: row + i, person, cells: shape.cells ? [`c${row + i}`, null, 'Ærøskøbing'] : null })),
      });
      row += persons.length;
    }
  }
  return chunks;
}

function newJob(id: string, orgId: string, rowCount: number): JobRecord {
  const now = new Date().toISOString();
  return {
    id, org_id: orgId, mode: 'live', source: 'api', status: 'queued', filename: null, file_format: null,
    row_count: rowCount, processed_count: 0, allowed_count: 0, blocked_count: 0, manual_count: 0, level_counts: emptyLevelCounts(),
    columns: [], column_mapping: null, options: { policy: 'standard', stop_level: 1 }, preview: [], price: null,
    list_version: { ...TEST_LIST_VERSION }, certificate_token: null, error: null,
    delete_after: new Date(Date.now() + 86_400_000).toISOString(), created_at: now, finished_at: null,
    callback_url: null, callback: null, external_ref: null, key_hash: 'k'.repeat(64), input_sha256: 'c'.repeat(64), updated_at: now,
  };
}

const stopping: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of stopping.splice(0)) await s.stop();
});

/** A job store of its own with the job in it, and the events both ways publish through. */
async function jobSide(refs: References, jobId: string, rowCount: number) {
  const resultsDb: DatabaseSync = openEmbeddedDatabase(':memory:');
  const jobs: JobStore = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'), resultsDb);
  await jobs.createJob(newJob(jobId, refs.orgId, rowCount));
  const appended: EventMessage[] = [];
  const events: PipelineEvents = createPipelineEvents({
    log: { publish: async (_topic, messages) => void appended.push(...messages) }, registry, dataKeys: refs.dataKeys,
  });
  return { jobs, resultsDb, events, appended };
}

const projectionDeps = (jobs: JobStore) => ({ jobs, renderJob: (job: JobRecord) => JSON.stringify(job), logger: silentLogger(), countIntervalMs: 60_000 });

describe('the embedded matcher stores the results it made', () => {
  it('stores byte for byte what the projection stored from the same chunks read back from checks.results', async () => {
    const refs = await references();
    const jobId = randomUUID();
    const chunks = jobChunks(refs, jobId);
    const rowCount = chunks.reduce((n, c) => n + c.rows.length, 0);

    // Through the log: the matcher publishes ResultsChunks, the projection decodes and stores them.
    const viaLog = await jobSide(refs, jobId, rowCount);
    const projection: Projection = createProjection({ ...projectionDeps(viaLog.jobs), events: viaLog.events, callbacks: noCallbacks });
    stopping.push(projection);
    const publishing = createMatcherCore({ ...refs.matcherDeps, events: viaLog.events });
    // Direct: the matcher stores them through the projection's results side.
    const direct = await jobSide(refs, jobId, rowCount);
    const writer: ResultsWriter = createResultsWriter({ ...projectionDeps(direct.jobs), callbacks: { timeoutMs: 1000 } }, direct.events);
    stopping.push(writer);
    const storing = createMatcherCore({ ...refs.matcherDeps, events: direct.events, results: writer });

    // The same batches both ways (a few chunks each, as the matcher's batches come).
    for (let at = 0; at < chunks.length; at += 3) {
      const values = await Promise.all(chunks.slice(at, at + 3).map(async (value) => (await viaLog.events.encode({ type: 'RowsChunk', value })).message.value));
      const before = viaLog.appended.length;
      await publishing.handleBatch(values);
      const decoded: PipelineEvent[] = [];
      for (const message of viaLog.appended.slice(before)) decoded.push(await viaLog.events.decode(message.value));
      expect(decoded.map((e) => e.type)).toEqual(values.map(() => 'ResultsChunk'));
      await projection.handle(decoded);
      await storing.handleBatch(values);
    }
    // The direct side published no results (only the projection's JobStateChanged).
    const directTypes = await Promise.all(direct.appended.map(async (m) => (await direct.events.decode(m.value)).type));
    expect(directTypes.every((type) => type === 'JobStateChanged')).toBe(true);

    // Every shape was stored: matches of every level, companies, phones, the private list, test mode, cells.
    const page = await direct.jobs.readResults(jobId, { limit: 10_000 });
    const results = page.rows.map((r) => r.result);
    expect(page.rows).toHaveLength(rowCount);
    expect(new Set(results.map((r) => r.match.level))).toEqual(new Set([null, 0, 1, 2, 3, 4, 5]));
    expect(results.some((r) => r.company)).toBe(true);
    expect(new Set(results.map((r) => r.phone_lookup?.outcome))).toEqual(new Set([undefined, 'found', 'unlisted', 'not_found']));
    expect(results.some((r) => r.list_version?.id === refs.privateId)).toBe(true);
    expect(results.some((r) => r.list_version?.id === TEST_LIST_VERSION.id || r.id === null)).toBe(true);
    expect(page.rows.some((r) => r.cells?.[2] === 'Ærøskøbing')).toBe(true);

    // The stored records, column by column and byte for byte.
    const records = (db: DatabaseSync) => db.prepare('SELECT * FROM check_result_records ORDER BY job_id, first_row').all();
    const storedViaLog = records(viaLog.resultsDb);
    expect(storedViaLog.length).toBeGreaterThan(1);
    expect(records(direct.resultsDb)).toEqual(storedViaLog);
    // Every page as served, and the result file's verdicts, in pages that cut records anywhere.
    for (const limit of [7, 100, 10_000]) {
      let cursor: string | undefined;
      do {
        const [a, b] = await Promise.all([viaLog.jobs, direct.jobs].map((jobs) => jobs.readResultsBytes(jobId, { limit, ...(cursor ? { cursor } : {}) })));
        expect(Buffer.concat(b.pieces).equals(Buffer.concat(a.pieces))).toBe(true);
        expect(b.count).toBe(a.count);
        expect(b.next_cursor).toBe(a.next_cursor);
        const [va, vb] = await Promise.all([viaLog.jobs, direct.jobs].map((jobs) => jobs.readResultVerdicts(jobId, { limit, ...(cursor ? { cursor } : {}) })));
        expect(vb).toEqual(va);
        cursor = a.next_cursor ?? undefined;
      } while (cursor);
    }
    // The job completed once on both sides, with the same counts and preview.
    const [doneViaLog, doneDirect] = await Promise.all([viaLog.jobs.getJobById(jobId), direct.jobs.getJobById(jobId)]);
    const shown = (job: JobRecord | null) => job && JSON.stringify([job.status, job.processed_count, job.allowed_count, job.blocked_count, job.manual_count, job.level_counts, job.preview]);
    expect(doneViaLog?.status).toBe('done');
    expect(shown(doneDirect)).toBe(shown(doneViaLog));
  });
});

describe('the embedded matcher storing its results: failures as before', () => {
  it('a chunk the store refuses for good fails its job and is dead-lettered; a transient failure redelivers, and the job completes once', async () => {
    const refs = await references();
    const store = createEmbeddedJobStore(openEmbeddedDatabase(':memory:'));
    const [refused, flaky] = [randomUUID(), randomUUID()];
    let downFor = 2;
    const jobs: JobStore = {
      ...store,
      putResults: (jobId, deleteAfter, rows) => {
        if (jobId === refused) return Promise.reject(new PermanentError('refused for good'));
        // Down twice for this job (as a locked store looks), then answering.
        if (jobId === flaky && downFor-- > 0) return Promise.reject(new Error('database is locked'));
        return store.putResults(jobId, deleteAfter, rows);
      },
    };
    // The first two chunks of a job: its rows 0-119.
    for (const jobId of [refused, flaky]) await store.createJob(newJob(jobId, refs.orgId, 120));

    // The matcher service on a real embedded log, storing through `jobs`.
    const log: EventLog = createEmbeddedEventLog({ db: openEmbeddedDatabase(':memory:'), logger: silentLogger(), pollIntervalMs: 20 });
    await log.createTopics(pipelineTopics());
    const events = createPipelineEvents({ log, registry, dataKeys: refs.dataKeys });
    const writer = createResultsWriter({ ...projectionDeps(jobs), callbacks: { timeoutMs: 1000 } }, events);
    const matcher = createMatcher({ log, registry, dataKeys: refs.dataKeys, ...refs.matcherDeps, results: writer });
    stopping.push({ stop: async () => { await matcher.stop(); await writer.stop(); await log.close(); } });
    // What reaches jobs.events, checks.results and the rows' dead letters, watched by a group of its own.
    const seen: Array<{ topic: string; key: string | null; event: PipelineEvent | null }> = [];
    let notify = () => {};
    await log.subscribe({
      group: 'watch', topics: [TOPIC_NAMES.jobsEvents, TOPIC_NAMES.checksResults, deadLetterTopicOf(TOPIC_NAMES.checksRows)],
      handleBatch: async (batch) => {
        for (const m of batch.messages) {
          seen.push({ topic: batch.topic, key: m.key, event: batch.topic === TOPIC_NAMES.jobsEvents ? await events.decode(m.value!) : null });
        }
        notify();
      },
    });
    const states = (jobId: string) => seen.flatMap((s) => (s.key === jobId && s.event?.type === 'JobStateChanged' ? [s.event.value] : []));
    /** Resolves once `check` holds for what the watcher saw (woken by each batch it is handed). */
    const until = (check: () => boolean) => new Promise<void>((resolve) => {
      notify = () => void (check() && resolve());
      notify();
    });
    await matcher.start();
    for (const jobId of [refused, flaky]) {
      await events.publish(jobChunks(refs, jobId).slice(0, 2).map((value) => ({ type: 'RowsChunk' as const, value })));
    }

    await until(() => states(refused).length > 0 && states(flaky).some((e) => e.status === 'done'));
    // Refused for good: the job failed (by the projection, on this JobStateChanged) and its chunks dead-lettered.
    expect(states(refused)).toEqual([expect.objectContaining({ status: 'failed', error: UNPROCESSABLE_MESSAGE })]);
    await until(() => seen.filter((s) => s.topic === deadLetterTopicOf(TOPIC_NAMES.checksRows)).length === 2);
    expect(seen.filter((s) => s.topic === deadLetterTopicOf(TOPIC_NAMES.checksRows)).map((s) => s.key?.split(':')[0])).toEqual([refused, refused]);
    // Down twice, then stored: every row once, the job done once, nothing on checks.results.
    expect(downFor).toBeLessThan(0);
    expect((await store.countResults(flaky)).processed).toBe(120);
    expect(states(flaky).map((e) => e.status)).toEqual(['running', 'done']);
    expect(await store.getJobById(flaky)).toMatchObject({ status: 'done', processed_count: 120 });
    expect(seen.filter((s) => s.topic === TOPIC_NAMES.checksResults)).toEqual([]);
  }, 30_000);
});
