/**
 * The matcher's batch handling with the real schema registry (static) and an embedded list store:
 * results per row in order against the pinned version, test-mode chunks, the previous version kept
 * for jobs pinned to it, and unmatchable chunks failing their job once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_LIST_VERSION } from '../../../services/domain/index.ts';
import { createActiveListIndex } from '../../../services/registers/lists/active-index.ts';
import { createActiveAddressRegister } from '../../../services/registers/addresses/active-register.ts';
import { checkPerson, createAddressRegisterBuilder, createListIndexBuilder } from '../../../services/domain/index.ts';
import { createEmbeddedAddressStore } from '../../../services/platform/store/embedded/addresses.ts';
import { CORPUS_LIST, CORPUS_PEOPLE, CORPUS_REGISTER, importCorpusRegister, REGISTER_DEPENDENT } from '../../support/one-check-corpus.ts';
import { createMatcherCore } from '../../../services/matcher/matcher.ts';
import { createPrivateListIndexes } from '../../../services/registers/lists/private-indexes.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../../services/platform/store/embedded/lists.ts';
import {
  createPipelineEvents, toAvroPerson, type EventMessage, type PipelineEvent, type ResultsChunkEvent, type RowsChunkEvent,
} from '../../../services/pipeline/events.ts';
import { createActiveRegister } from '../../../services/registers/companies/active-register.ts';
import {
  createCompanyIndexBuilder, createPhoneIndexBuilder, type CompanyIndex, type CompanyRecord, type DirectoryEntry, type PhoneIndex,
} from '../../../services/domain/index.ts';
import { DirectoryUnavailableError } from '../../../services/registers/phones/directory-port.ts';
import { createEmbeddedRegisterStore } from '../../../services/platform/store/embedded/registers.ts';
import type { MatcherRegisters } from '../../../services/matcher/matcher.ts';
import {
  DIRECTORY_ENTRIES, mixedRows, mixedTestRows, REGISTER_COMPANIES, REGISTER_ROWS, seedListVersion, seedRegisterVersion, type MixedRow,
} from '../../support/pipeline.ts';

function setup(registers?: (store: ReturnType<typeof createEmbeddedRegisterStore>) => MatcherRegisters) {
  const db = openEmbeddedDatabase(':memory:');
  const lists = createEmbeddedListStore(db);
  const registerStore = createEmbeddedRegisterStore(db);
  const appended: Array<{ topic: string; messages: EventMessage[] }> = [];
  const events = createPipelineEvents({
    log: { publish: async (topic, messages) => void appended.push({ topic, messages }) },
    registry: createStaticSchemaRegistry(),
  });
  let builds = 0;
  const index = createActiveListIndex({ listStore: lists, logger: silentLogger() });
  const counted = { forVersion: (id: string, addresses: string | null) => (builds++, index.forVersion(id, addresses)) };
  const matcher = createMatcherCore({ events, activeIndex: counted, logger: silentLogger(), ...(registers ? { registers: registers(registerStore) } : {}) });
  const published = async (): Promise<PipelineEvent[]> => {
    const out: PipelineEvent[] = [];
    for (const { messages } of appended) for (const m of messages) out.push(await events.decode(m.value));
    return out;
  };
  return { lists, registerStore, events, matcher, published, appended, builds: () => builds };
}

function chunk(jobId: string, n: number, rows: MixedRow[], first: number, overrides: Partial<RowsChunkEvent>): RowsChunkEvent {
  return {
    job_id: jobId, chunk: n, org_id: randomUUID(), mode: 'live', list_version_id: null, policy: 'standard', stop_level: 1, locale: 'en', private_list_version_id: null,
    check_people: true, check_companies: false, check_phones: false, company_register_version_id: null, phone_directory_version_id: null, address_register_version_id: null,
    rows: rows.map((r, i) => ({ row: first + i, person: toAvroPerson(r.person), cells: null })), ...overrides,
  };
}

describe('matcher', () => {
  it('answers every row of a live chunk in order against the pinned version', async () => {
    const { lists, events, matcher, published, appended } = setup();
    const version = await seedListVersion(lists);
    const rows = mixedRows(16);
    const jobId = randomUUID();
    const values = await Promise.all([
      events.encode({ type: 'RowsChunk', value: chunk(jobId, 0, rows.slice(0, 8), 0, { list_version_id: version.id }) }),
      events.encode({ type: 'RowsChunk', value: chunk(jobId, 1, rows.slice(8), 8, { list_version_id: version.id }) }),
    ]);
    await matcher.handleBatch(values.map((v) => v.message.value));
    expect(appended.map((a) => a.topic)).toEqual(['checks.results']);
    expect(appended[0].messages.every((m) => m.key === jobId)).toBe(true);
    const out = await published();
    const results = out.flatMap((e) => (e.value as ResultsChunkEvent).results);
    expect(out.map((e) => [(e.value as ResultsChunkEvent).chunk, (e.value as ResultsChunkEvent).list_version_id])).toEqual([[0, version.id], [1, version.id]]);
    expect(results.map((r) => r.row)).toEqual(rows.map((_, i) => i));
    expect(results.map((r) => r.result.match.level)).toEqual(rows.map((r) => r.level));
    expect(results.map((r) => r.result.id)).toEqual(rows.map((r) => r.person.id));
  });

  it('gives test-mode chunks the fixed answers and the fixed test version, never reading a list', async () => {
    const { events, matcher, published, builds } = setup();
    const rows = mixedTestRows(8);
    const { message } = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { mode: 'test' }) });
    await matcher.handleBatch([message.value]);
    const [out] = await published();
    expect((out.value as ResultsChunkEvent).list_version_id).toBe(TEST_LIST_VERSION.id);
    expect((out.value as ResultsChunkEvent).results.map((r) => r.result.match.level)).toEqual(rows.map((r) => r.level));
    expect(builds()).toBe(0);
  });

  it('keeps checking jobs pinned to the previous version after a new one is activated', async () => {
    const { lists, events, matcher, published } = setup();
    const old = await seedListVersion(lists);
    const current = await seedListVersion(lists, [{ name: 'Berg,Ib', address: 'Strandvejen 100, 2900 Hellerup' }]);
    const rows = mixedRows(1); // Anne Hansen at her own unit: 5 on the old version, 0 on the new one
    const a = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: old.id }) });
    const b = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: current.id }) });
    await matcher.handleBatch([a.message.value, b.message.value]);
    const out = (await published()).map((e) => e.value as ResultsChunkEvent);
    expect(out.map((e) => [e.list_version_id, e.results[0].result.match.level])).toEqual([[old.id, 5], [current.id, 0]]);
  });

  it('fails a job whose pinned version does not exist, once per job, without results', async () => {
    const { events, matcher, published } = setup();
    const jobId = randomUUID();
    const missing = randomUUID();
    const values = await Promise.all([0, 1, 2].map((n) =>
      events.encode({ type: 'RowsChunk', value: chunk(jobId, n, mixedRows(2), n * 2, { list_version_id: missing }) })));
    await matcher.handleBatch(values.map((v) => v.message.value));
    const noVersion = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, mixedRows(1), 0, { list_version_id: null }) });
    await matcher.handleBatch([noVersion.message.value]);
    const out = await published();
    expect(out.map((e) => [e.type, (e.value as { status?: string }).status, (e.value as { error?: string }).error])).toEqual([
      ['JobStateChanged', 'failed', 'list_version_unavailable'],
      ['JobStateChanged', 'failed', 'list_version_missing'],
    ]);
  });

  it('fails a job whose pinned private list cannot be indexed (gone, or not a customer list), never checking it without', async () => {
    const { lists, events, published } = setup();
    const version = await seedListVersion(lists);
    const matcher = createMatcherCore({
      events, logger: silentLogger(), activeIndex: createActiveListIndex({ listStore: lists, logger: silentLogger() }),
      privateLists: createPrivateListIndexes({ listStore: lists, logger: silentLogger(), maxEntries: 1000 }),
    });
    const gone = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, mixedRows(1), 0, { list_version_id: version.id, private_list_version_id: randomUUID() }) });
    // The national version is no private list.
    const national = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, mixedRows(1), 0, { list_version_id: version.id, private_list_version_id: version.id }) });
    await matcher.handleBatch([gone.message.value, national.message.value]);
    const out = await published();
    expect(out.map((e) => [e.type, (e.value as { error?: string }).error])).toEqual([
      ['JobStateChanged', 'private_list_unavailable'],
      ['JobStateChanged', 'private_list_unavailable'],
    ]);
  });

  it('lets a transient store failure through, so the batch is retried', async () => {
    const { events } = setup();
    const matcher = createMatcherCore({
      events, logger: silentLogger(), activeIndex: { forVersion: async () => { throw new Error('connection reset'); } },
    });
    const { message } = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, mixedRows(1), 0, { list_version_id: randomUUID() }) });
    await expect(matcher.handleBatch([message.value])).rejects.toThrow('connection reset');
  });

  describe('company and phone checks (RowsChunk v5)', () => {
    const fromStore = (store: ReturnType<typeof createEmbeddedRegisterStore>, directory?: MatcherRegisters['directory']): MatcherRegisters => ({
      companies: createActiveRegister<CompanyRecord, CompanyIndex>({ store, kind: 'companies', logger: silentLogger(), createBuilder: createCompanyIndexBuilder }),
      phones: createActiveRegister<DirectoryEntry, PhoneIndex>({ store, kind: 'phones', logger: silentLogger(), createBuilder: createPhoneIndexBuilder }),
      ...(directory ? { directory } : {}),
    });
    const v3 = { check_people: false, check_companies: true, check_phones: true };
    const registerRows = REGISTER_ROWS.map((r) => ({ person: r.row, level: r.level }));

    it('checks every §17 row against the pinned company register and directory versions', async () => {
      const { lists, registerStore, events, matcher, published } = setup((store) => fromStore(store));
      const list = await seedListVersion(lists);
      const companies = await seedRegisterVersion(registerStore, 'companies', REGISTER_COMPANIES);
      const phones = await seedRegisterVersion(registerStore, 'phones', DIRECTORY_ENTRIES);
      const { message } = await events.encode({
        type: 'RowsChunk',
        value: chunk(randomUUID(), 0, registerRows, 0, {
          list_version_id: list.id, ...v3, company_register_version_id: companies.id, phone_directory_version_id: phones.id,
        }),
      });
      await matcher.handleBatch([message.value]);
      const [out] = await published();
      const results = (out.value as ResultsChunkEvent).results.map((r) => r.result);
      for (const [i, expected] of REGISTER_ROWS.entries()) {
        const result = results[i];
        expect([result.id, result.status, result.reasons, result.match.level]).toEqual([expected.row.id, expected.status, expected.reasons, expected.level]);
        if (expected.company) expect(result.company).toMatchObject({ ...expected.company, synced_at: companies.created_at });
        else expect(result.company).toBeUndefined();
        expect(result.phone_lookup?.outcome).toBe(expected.phone);
      }
    });

    it('without a pinned directory version, asks the provider once per chunk for its distinct numbers', async () => {
      const asked: string[][] = [];
      const provider = {
        lookup: async (numbers: readonly string[]) => {
          asked.push([...numbers]);
          return new Map(numbers.map((n) => [n, DIRECTORY_ENTRIES.find((e) => e.number === n) ?? null]));
        },
      };
      const { lists, registerStore, events, matcher, published } = setup((store) => fromStore(store, provider));
      const list = await seedListVersion(lists);
      const rows = [{ phone: '22334455' }, { phone: '+45 22 33 44 55' }, { phone: '66778899' }].map((person) => ({ person, level: null }));
      const { message } = await events.encode({
        type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: list.id, check_people: true, check_phones: true }),
      });
      await matcher.handleBatch([message.value]);
      expect(asked).toEqual([['+4522334455', '+4566778899']]);
      const results = ((await published())[0].value as ResultsChunkEvent).results.map((r) => r.result);
      expect(results.map((r) => [r.status, r.phone_lookup?.outcome])).toEqual([['blocked', 'found'], ['blocked', 'found'], ['manual', 'unlisted']]);
      void registerStore;
    });

    it('fails the job when a pinned register is missing or gone, or the directory cannot answer; never a guessed answer', async () => {
      const down = { lookup: async () => { throw new DirectoryUnavailableError('provider_failed', 'HTTP 502'); } };
      const { lists, events, matcher, published } = setup((store) => fromStore(store, down));
      const list = await seedListVersion(lists);
      const cases = [
        { check_companies: true, company_register_version_id: null },
        { check_companies: true, company_register_version_id: randomUUID() },
        { check_phones: true, phone_directory_version_id: randomUUID() },
        { check_phones: true },
      ];
      for (const overrides of cases) {
        const { message } = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, registerRows, 0, { list_version_id: list.id, ...overrides }) });
        await matcher.handleBatch([message.value]);
      }
      const out = await published();
      expect(out.map((e) => [e.type, (e.value as { error?: string }).error])).toEqual([
        ['JobStateChanged', 'company_register_missing'],
        ['JobStateChanged', 'company_register_unavailable'],
        ['JobStateChanged', 'phone_directory_unavailable'],
        ['JobStateChanged', 'phone_directory_unavailable'],
      ]);
    });

    it('a test-mode chunk gets the §3 company and phone answers without any register', async () => {
      const { events, matcher, published } = setup();
      const rows = [{ cvr: '00000042' }, { cvr: '25313763' }, { phone: '12340000' }, { phone: '12341111' }, { phone: '12345678' }].map((person) => ({ person, level: null }));
      const { message } = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { mode: 'test', ...v3 }) });
      await matcher.handleBatch([message.value]);
      const results = ((await published())[0].value as ResultsChunkEvent).results.map((r) => r.result);
      expect(results.map((r) => [r.status, r.reasons, r.company?.company_form ?? null, r.phone_lookup?.outcome ?? null])).toEqual([
        ['blocked', ['company_protected'], 'A/S', null],
        ['allowed', [], 'ApS', null],
        ['manual', ['phone_not_found'], null, 'not_found'],
        ['manual', ['phone_unlisted'], null, 'unlisted'],
        ['allowed', [], null, 'found'],
      ]);
    });
  });

  describe('address register pins (RowsChunk v6): exactly the register the job pinned', () => {
    async function registerSetup() {
      const db = openEmbeddedDatabase(':memory:');
      const lists = createEmbeddedListStore(db);
      const addressStore = createEmbeddedAddressStore(db);
      const appended: Array<{ topic: string; messages: EventMessage[] }> = [];
      const events = createPipelineEvents({
        log: { publish: async (topic, messages) => void appended.push({ topic, messages }) },
        registry: createStaticSchemaRegistry(),
      });
      const addresses = createActiveAddressRegister({ store: addressStore, logger: silentLogger() });
      // The matcher's index never refreshes: it builds what a chunk pinned, nothing else.
      const activeIndex = createActiveListIndex({ listStore: lists, logger: silentLogger(), addresses });
      const matcher = createMatcherCore({ events, activeIndex, logger: silentLogger() });
      const version = await seedListVersion(lists, CORPUS_LIST);
      const register = await importCorpusRegister(addressStore);
      const published = async (): Promise<PipelineEvent[]> => {
        const out: PipelineEvent[] = [];
        for (const { messages } of appended) for (const m of messages) out.push(await events.decode(m.value));
        return out;
      };
      return { lists, addressStore, events, matcher, published, version, register };
    }

    /** The synchronous check's answer: the domain on an index of the same list, with or without the register. */
    function syncAnswers(withRegister: boolean) {
      const rb = createAddressRegisterBuilder();
      for (const a of CORPUS_REGISTER) rb.add(a);
      const builder = createListIndexBuilder(withRegister ? rb.build() : null);
      for (const e of CORPUS_LIST) builder.add(e);
      const index = builder.build();
      return CORPUS_PEOPLE.map((p) => checkPerson(index, p, { policy: 'standard', stopLevel: 1, locale: 'en' }));
    }

    it('a chunk pinned to a register gets the register-aware answers; one without a pin the text-only ones, in the same process', async () => {
      const { events, matcher, published, version, register } = await registerSetup();
      const rows = CORPUS_PEOPLE.map((person) => ({ person, level: null }));
      const pinned = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: version.id, address_register_version_id: register.id }) });
      const unpinned = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: version.id }) });
      await matcher.handleBatch([pinned.message.value, unpinned.message.value]);
      const [withRegister, withoutRegister] = (await published()).map((e) => (e.value as ResultsChunkEvent).results.map((r) => r.result));
      expect(JSON.parse(JSON.stringify(withRegister))).toEqual(JSON.parse(JSON.stringify(syncAnswers(true))));
      expect(JSON.parse(JSON.stringify(withoutRegister))).toEqual(JSON.parse(JSON.stringify(syncAnswers(false))));
      // The register matters for these people: level 5 with it, never without.
      const level = (results: typeof withRegister, id: string) => results.find((r) => r.id === id)?.match.level;
      for (const id of REGISTER_DEPENDENT) {
        expect(level(withRegister, id), id).toBe(5);
        expect(level(withoutRegister, id), id).not.toBe(5);
      }
    });

    it('fails a job whose pinned register is gone or was never activated, never checking it with another register', async () => {
      const { events, matcher, published, version, addressStore } = await registerSetup();
      const inactive = { id: randomUUID(), published_on: '2026-11-02', created_at: new Date().toISOString(), activated_at: null, address_count: 0 };
      await addressStore.createAddressVersion(inactive);
      await addressStore.sealAddressVersion(inactive.id);
      const rows = CORPUS_PEOPLE.slice(0, 2).map((person) => ({ person, level: null }));
      const gone = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: version.id, address_register_version_id: randomUUID() }) });
      const never = await events.encode({ type: 'RowsChunk', value: chunk(randomUUID(), 0, rows, 0, { list_version_id: version.id, address_register_version_id: inactive.id }) });
      await matcher.handleBatch([gone.message.value, never.message.value]);
      const out = await published();
      expect(out.map((e) => [e.type, (e.value as { error?: string }).error])).toEqual([
        ['JobStateChanged', 'address_register_unavailable'],
        ['JobStateChanged', 'address_register_unavailable'],
      ]);
    });
  });
});
