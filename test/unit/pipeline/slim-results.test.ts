import type avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson } from '../../../services/domain/index.ts';
import type { Locale } from '../../../services/domain/types.ts';
import {
  createPipelineEvents, isUnreadableEvent, type EventMessage, type ResultsChunkEvent, type RowResult,
} from '../../../services/pipeline/events.ts';
import { composeFormatted, isComposition, toSlim } from '../../../services/pipeline/slim-results.ts';
import { createJobDataKeys } from '../../../services/platform/keys/data-keys.ts';
import { seal } from '../../../services/platform/keys/sealed-payload.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import { frame } from '../../../services/platform/schema-registry/port.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { generateListEntries, generatePeople } from '../../../services/synthetic/index.ts';
import { sampleEvents } from '../../fixtures/events.ts';

/**
 * ResultsChunk v6 (docs/architecture.md "Slim results"): the matcher writes results in the slim
 * form, and the projection reads them back exactly as the full form of v5 read, byte for byte in
 * JSON (key order included), sealed or not; chunks a v5 writer left on the topic still read
 * (rolling upgrade). Real schemas, the static registry and real embedded key stores.
 */
const catalog = loadSchemaCatalog();
const registry = createStaticSchemaRegistry(catalog);
const SUBJECT = 'checks.results-dk.robinson.checks.ResultsChunk';
const sample = sampleEvents[SUBJECT] as ResultsChunkEvent;

function codecs() {
  const db = openEmbeddedDatabase(':memory:');
  const dataKeys = createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db), cacheMs: 0 });
  const log = { publish: async (_topic: string, _messages: EventMessage[]) => {} };
  return {
    dataKeys,
    slimSealed: createPipelineEvents({ log, registry, dataKeys }),
    fullSealed: createPipelineEvents({ log, registry, dataKeys, slimResults: false }),
    slimPlain: createPipelineEvents({ log, registry }),
    fullPlain: createPipelineEvents({ log, registry, slimResults: false }),
  };
}

/** Real answers of the domain: list members (matches with labels), strangers, both locales. */
function domainResults(locale: Locale): RowResult[] {
  const entries = [...generateListEntries(400, 5)];
  const index = buildListIndex(entries);
  const people = [
    ...entries.slice(0, 150).map(({ previous: _p, ...person }, i) => ({ ...person, id: `m${i}` })),
    ...generatePeople(150, 'slim-5'),
    { name: 'Anne', address: 'ikke en adresse' },
    {},
  ];
  return people.map((person, row) => ({
    row, cells: row % 3 === 0 ? [`c${row}`, null] : null, result: checkPerson(index, person, { policy: 'standard', stopLevel: 1, locale }),
  }));
}

/** A register answer whose formatted text names a town: not the plain composition of its parts. */
const withTown: RowResult = {
  row: 900, cells: null,
  result: {
    ...sample.results[0].result,
    address: {
      input: 'Skeevej 39B, st. tv, 4370', ok: true, street: 'Skeevej', house_number: '39B', floor: 'st', door: 'tv',
      postal_code: '4370', city: 'Store Merløse', formatted: 'Skeevej 39B, st. tv, Skee, 4370 Store Merløse', confidence: 'exact',
    },
  },
};

function chunkOf(results: RowResult[]): ResultsChunkEvent {
  return { job_id: sample.job_id, list_version_id: sample.list_version_id, chunk: 7, results };
}

const json = (value: unknown) => JSON.stringify(value);

describe('slim results (ResultsChunk v6)', () => {
  const all = [...sample.results, ...domainResults('da'), ...domainResults('en'), withTown];

  it('the domain answers include what the slim form must carry', () => {
    expect(new Set(all.map((r) => r.result.match.label)).size).toBeGreaterThan(2);
    expect(all.some((r) => r.result.address?.formatted && composeFormatted(r.result.address) === r.result.address.formatted)).toBe(true);
    expect(all.some((r) => r.result.address?.ok === false)).toBe(true);
    expect(all.some((r) => r.result.company)).toBe(true);
    expect(all.some((r) => r.result.list_version)).toBe(true);
  });

  it.each(['sealed', 'unsealed'] as const)('%s: decodes to exactly what the full form decodes to, in fewer bytes', async (kind) => {
    const c = codecs();
    const [slim, full] = kind === 'sealed' ? [c.slimSealed, c.fullSealed] : [c.slimPlain, c.fullPlain];
    const event = { type: 'ResultsChunk' as const, value: chunkOf(all) };
    const slimBytes = (await slim.encode(event)).message.value;
    const fullBytes = (await full.encode(event)).message.value;
    expect(slimBytes.readUInt32BE(1)).toBe(catalog.latest(SUBJECT)!.id);
    const fromSlim = (await slim.decode(slimBytes)).value as ResultsChunkEvent;
    const fromFull = (await slim.decode(fullBytes)).value as ResultsChunkEvent;
    expect(fromSlim.results).toHaveLength(all.length);
    expect(json(fromSlim)).toBe(json(fromFull));
    expect(json(fromSlim.results.map((r) => r.result))).toBe(json(fromFull.results.map((r) => r.result)));
    expect(slimBytes.length).toBeLessThan(fullBytes.length * 0.75);
    if (kind === 'sealed') {
      expect(slimBytes.includes(Buffer.from('Åboulevarden'))).toBe(false);
      expect(fromSlim.data_key_id).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('tells a composed address in place exactly as composing it and comparing does (property)', () => {
    const part = fc.option(fc.constantFrom('', ' ', '.', ',', ', ', '3', '3.', 'tv', 'st', 'Gammel Kongevej', '12A', '1610', 'København V', 'a b'), { nil: null });
    const parts = fc.record({ street: part, house_number: part, floor: part, door: part, postal_code: part, city: part });
    // The composition itself, a variant of it (cut, extended, one character changed), or any text.
    const formatted = (a: Parameters<typeof composeFormatted>[0]) => {
      const composed = composeFormatted(a) ?? '';
      return fc.oneof(
        fc.constant(composed), fc.nat({ max: composed.length }).map((n) => composed.slice(0, n)),
        fc.string({ maxLength: 3 }).map((t) => composed + t), fc.string({ maxLength: 3 }).map((t) => t + composed),
        fc.nat({ max: Math.max(0, composed.length - 1) }).map((i) => composed.slice(0, i) + (composed[i] === 'x' ? 'y' : 'x') + composed.slice(i + 1)),
        fc.string({ maxLength: 40 }),
      );
    };
    fc.assert(fc.property(parts.chain((a) => fc.tuple(fc.constant(a), formatted(a))), ([a, text]) => {
      expect(isComposition(text, a)).toBe(composeFormatted(a) === text);
    }), { seed: 20261127, numRuns: 3000 });
  });

  it('carries a formatted address that is not the composition of its parts as written', async () => {
    const { slimPlain } = codecs();
    const slim = toSlim([withTown, sample.results[0]]);
    expect(slim.rows.map((r) => r.address?.composed)).toEqual([false, true]);
    const decoded = (await slimPlain.decode((await slimPlain.encode({ type: 'ResultsChunk', value: chunkOf([withTown]) })).message.value)).value as ResultsChunkEvent;
    expect(decoded.results[0].result.address?.formatted).toBe('Skeevej 39B, st. tv, Skee, 4370 Store Merløse');
  });

  it('rolling upgrade: a sealed chunk a v5 writer left on the topic reads as before', async () => {
    const c = codecs();
    const v5 = catalog.bySubject.get(SUBJECT)![4];
    expect(v5.version).toBe(5);
    const key = await c.dataKeys.writerKey(sample.job_id);
    const results = (v5.type as avro.types.RecordType).field('results').type;
    const value = chunkOf(sample.results);
    const sealed = seal(key.key, results.toBuffer(value.results), `ResultsChunk:${value.job_id}:${value.chunk}`);
    const old = frame(v5.id, v5.type.toBuffer({ ...value, results: [], data_key_id: key.keyId, sealed_results: sealed }));
    const decoded = (await c.slimSealed.decode(old)).value as ResultsChunkEvent;
    const written = (await c.slimSealed.decode((await c.slimSealed.encode({ type: 'ResultsChunk', value })).message.value)).value as ResultsChunkEvent;
    expect(json(decoded.results)).toBe(json(written.results));
    expect(Object.keys(decoded).sort()).toEqual(Object.keys(written).sort());
  });

  it('a slim chunk whose key is gone decodes as forgotten; a label index out of range is unreadable', async () => {
    const c = codecs();
    const bytes = (await c.slimSealed.encode({ type: 'ResultsChunk', value: chunkOf(sample.results) })).message.value;
    await c.dataKeys.forget(sample.job_id);
    expect((await c.slimSealed.decode(bytes)).value).toMatchObject({ forgotten: true, results: [] });

    const v6 = catalog.latest(SUBJECT)!;
    const slim = toSlim(sample.results);
    slim.rows[0].label = slim.labels.length;
    const bad = frame(v6.id, v6.type.toBuffer({ ...chunkOf([]), data_key_id: null, sealed_results: null, slim_results: slim, sealed_slim_results: null }));
    const error = await c.slimPlain.decode(bad).catch((e: unknown) => e);
    expect(isUnreadableEvent(error)).toBe(true);
  });
});
