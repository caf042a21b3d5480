/**
 * The matcher's batch handling with the real schema registry (static) and an embedded list store:
 * results per row in order against the pinned version, test-mode chunks, the previous version kept
 * for jobs pinned to it, and unmatchable chunks failing their job once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_LIST_VERSION } from '../../../services/domain/index.ts';
import { createActiveListIndex } from '../../../services/lists/active-index.ts';
import { createMatcherCore } from '../../../services/matcher/matcher.ts';
import { createPrivateListIndexes } from '../../../services/lists/private-indexes.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../../services/platform/store/embedded/lists.ts';
import {
  createPipelineEvents, toAvroPerson, type EventMessage, type PipelineEvent, type ResultsChunkEvent, type RowsChunkEvent,
} from '../../../services/pipeline/events.ts';
import { mixedRows, mixedTestRows, seedListVersion, type MixedRow } from '../../support/pipeline.ts';

function setup() {
  const lists = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
  const appended: Array<{ topic: string; messages: EventMessage[] }> = [];
  const events = createPipelineEvents({
    log: { publish: async (topic, messages) => void appended.push({ topic, messages }) },
    registry: createStaticSchemaRegistry(),
  });
  let builds = 0;
  const index = createActiveListIndex({ listStore: lists, logger: silentLogger() });
  const counted = { forVersion: (id: string) => (builds++, index.forVersion(id)) };
  const matcher = createMatcherCore({ events, activeIndex: counted, logger: silentLogger() });
  const published = async (): Promise<PipelineEvent[]> => {
    const out: PipelineEvent[] = [];
    for (const { messages } of appended) for (const m of messages) out.push(await events.decode(m.value));
    return out;
  };
  return { lists, events, matcher, published, appended, builds: () => builds };
}

function chunk(jobId: string, n: number, rows: MixedRow[], first: number, overrides: Partial<RowsChunkEvent>): RowsChunkEvent {
  return {
    job_id: jobId, chunk: n, org_id: randomUUID(), mode: 'live', list_version_id: null, policy: 'standard', stop_level: 1, locale: 'en', private_list_version_id: null,
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
});
