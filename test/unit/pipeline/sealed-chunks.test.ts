import { describe, expect, it } from 'vitest';
import { createPipelineEvents, isUnreadableEvent, JobDataForgottenError, type EventMessage, type PipelineEvent, type ResultsChunkEvent, type RowsChunkEvent } from '../../../services/pipeline/events.ts';
import { createJobDataKeys } from '../../../services/platform/keys/data-keys.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { seal } from '../../../services/platform/keys/sealed-payload.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import { frame } from '../../../services/platform/schema-registry/port.ts';
import type avro from 'avsc';
import { sampleEvents } from '../../fixtures/events.ts';

/**
 * Rows and results on the topics are sealed with the job's data key (crypto-shredding): the bytes
 * on the log hold no name, a consumer with the key reads them as before, and once the job's keys
 * are deleted the chunk decodes as `forgotten` (nothing to check or store), never as poison.
 * Real embedded key stores (node:sqlite in memory).
 */
const registry = createStaticSchemaRegistry();
const rowsSample = sampleEvents['checks.rows-dk.robinson.checks.RowsChunk'] as RowsChunkEvent;
const resultsSample = sampleEvents['checks.results-dk.robinson.checks.ResultsChunk'] as ResultsChunkEvent;
const NAME = 'Søren Ærø';

function setup(configured?: string) {
  const db = openEmbeddedDatabase(':memory:');
  const keys = createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db), configured, cacheMs: 0 });
  const appended: EventMessage[] = [];
  const events = createPipelineEvents({ log: { publish: async (_t, messages) => void appended.push(...messages) }, registry, dataKeys: keys });
  return { db, keys, events, appended };
}

describe('sealed row and result chunks', () => {
  it('a published RowsChunk holds no name on the log and decodes to the same rows with its key id', async () => {
    const { events, appended } = setup();
    await events.publish({ type: 'RowsChunk', value: rowsSample });
    const bytes = appended[0].value;
    expect(bytes.includes(Buffer.from(NAME))).toBe(false);
    expect(bytes.includes(Buffer.from('Åboulevarden'))).toBe(false);
    const plain = createPipelineEvents({ log: { publish: async () => {} }, registry });
    const unsealed = (await plain.encode({ type: 'RowsChunk', value: rowsSample })).message.value;
    expect(unsealed.includes(Buffer.from(NAME))).toBe(true); // the search above can find it
    const decoded = await events.decode(bytes);
    const value = decoded.value as RowsChunkEvent;
    expect(value.rows).toEqual(rowsSample.rows);
    expect(value.data_key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(value.forgotten).toBeUndefined();
  });

  it('results sealed with the rows chunk key decode; a results chunk names the same key', async () => {
    const { events, appended } = setup();
    await events.publish({ type: 'RowsChunk', value: rowsSample });
    const rows = (await events.decode(appended[0].value)).value as RowsChunkEvent;
    await events.publish({ type: 'ResultsChunk', value: { ...resultsSample, data_key_id: rows.data_key_id } });
    expect(appended[1].value.includes(Buffer.from('address_unreadable'))).toBe(false);
    const results = (await events.decode(appended[1].value)).value as ResultsChunkEvent;
    expect(results.data_key_id).toBe(rows.data_key_id);
    expect(results.results.map((r) => r.row)).toEqual([0, 1, 2, 3]);
    expect(results.results[1].result.reasons).toEqual(['address_unreadable']);
  });

  it('results sealed by a v3 writer (before match.approximate) decode with approximate false', async () => {
    const { events, keys } = setup();
    const v3 = loadSchemaCatalog().bySubject.get('checks.results-dk.robinson.checks.ResultsChunk')![2];
    expect(v3.version).toBe(3);
    const fieldType = (v3.type as avro.types.RecordType).field('results').type;
    const old = resultsSample.results.map((r) => {
      const { approximate: _dropped, ...match } = r.result.match;
      const { list_version: _v5, ...result } = r.result;
      return { ...r, result: { ...result, match, company: r.result.company ?? null } };
    });
    const key = await keys.writerKey(resultsSample.job_id);
    const sealed = seal(key.key, fieldType.toBuffer(old), `ResultsChunk:${resultsSample.job_id}:${resultsSample.chunk}`);
    const envelope = { ...resultsSample, results: [], data_key_id: key.keyId, sealed_results: sealed };
    const decoded = (await events.decode(frame(v3.id, v3.type.toBuffer(envelope)))).value as ResultsChunkEvent;
    expect(decoded.results.map((r) => r.result.match.approximate)).toEqual([false, false, false, false]);
    expect(decoded.results.map((r) => r.result.match.level)).toEqual(resultsSample.results.map((r) => r.result.match.level));
  });

  it('a v4 writer keeps approximate', async () => {
    const { events, appended } = setup();
    await events.publish({ type: 'ResultsChunk', value: resultsSample });
    const decoded = (await events.decode(appended[0].value)).value as ResultsChunkEvent;
    expect(decoded.results.map((r) => r.result.match.approximate)).toEqual([true, false, true, true]);
    // v5: the private list version a match came from travels with it; none is left out.
    expect(decoded.results.map((r) => r.result.list_version?.source ?? null)).toEqual([null, null, null, 'customer']);
  });

  it('after forget: chunks decode as forgotten (empty), sealing results with the gone key throws', async () => {
    const { events, keys, appended } = setup();
    await events.publish({ type: 'RowsChunk', value: rowsSample });
    const rows = (await events.decode(appended[0].value)).value as RowsChunkEvent;
    await keys.forget(rowsSample.job_id);
    const after = (await events.decode(appended[0].value)).value as RowsChunkEvent;
    expect(after).toMatchObject({ forgotten: true, rows: [], job_id: rowsSample.job_id });
    await expect(events.publish({ type: 'ResultsChunk', value: { ...resultsSample, data_key_id: rows.data_key_id } }))
      .rejects.toBeInstanceOf(JobDataForgottenError);
  });

  it('a chunk moved to another job or chunk, or one tampered byte, is unreadable (poison), not forgotten', async () => {
    const { events, appended } = setup();
    await events.publish({ type: 'RowsChunk', value: rowsSample });
    const bytes = Buffer.from(appended[0].value);
    // A byte of the sealed rows: after them come only the RowsChunk v5-v7 fields (three flags,
    // three version ids and a null person_cells, under 90 bytes in the sample).
    bytes[bytes.length - 110] ^= 1;
    const error = await events.decode(bytes).catch((e: unknown) => e);
    expect(isUnreadableEvent(error)).toBe(true);
    expect(String(error)).not.toContain(NAME);
  });

  it('a configured master key wraps; without it the stored data key does not unwrap', async () => {
    const master = Buffer.alloc(32, 7).toString('base64');
    const first = setup(master);
    await first.events.publish({ type: 'RowsChunk', value: rowsSample });
    const [stored] = await createEmbeddedDataKeyStore(first.db).listJobKeys(rowsSample.job_id);
    expect(stored.master_kid).toMatch(/^cfg-/);
    const rotated = createJobDataKeys({
      store: createEmbeddedDataKeyStore(first.db), keyring: createEmbeddedKeyRing(first.db),
      configured: `${Buffer.alloc(32, 9).toString('base64')},${master}`,
    });
    expect((await rotated.key(stored.job_id, stored.key_id))?.key).toHaveLength(32); // the old key still unwraps
    const lost = createJobDataKeys({ store: createEmbeddedDataKeyStore(first.db), keyring: createEmbeddedKeyRing(first.db), configured: Buffer.alloc(32, 9).toString('base64') });
    await expect(lost.key(stored.job_id, stored.key_id)).rejects.toThrow(/not configured/);
  });

  it('events without data keys write chunks unsealed (as before) and read both kinds of old chunk', async () => {
    const appended: EventMessage[] = [];
    const plain = createPipelineEvents({ log: { publish: async (_t, m) => void appended.push(...m) }, registry });
    const event: PipelineEvent = { type: 'RowsChunk', value: rowsSample };
    await plain.publish(event);
    expect((await setup().events.decode(appended[0].value)).value).toMatchObject({ rows: rowsSample.rows, data_key_id: null });
  });
});
