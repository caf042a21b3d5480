import type avro from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toAvroPerson } from '../../../services/pipeline/events.ts';
import { toSlim } from '../../../services/pipeline/slim-results.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import { compileAvro } from '../../../services/platform/schema-registry/compiled-codec.ts';
import { frame, WireFormatError } from '../../../services/platform/schema-registry/port.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { sampleEvents } from '../../fixtures/events.ts';

/**
 * The compiled codec (docs/architecture.md "The compiled codec") writes avsc's bytes for
 * every value of every schema version in schemas/, reads them back as avsc does, and refuses what
 * avsc refuses. Property-style over generated records; the seeds are fixed so a run is repeatable.
 */
const catalog = loadSchemaCatalog();
const SEED = 20261127;

/** Strings where the writer's paths part: ASCII under/over 64, Danish letters, emoji, lone surrogates. */
const awkwardStrings = fc.constantFrom(
  '', 'a', 'Søren Ærø', 'Åbenrå', 'København V', 'Gammel Kongevej 12A, 3. tv, 1610 København V', '😀 smiley', 'x\uD800', '\uDC00y',
  '\uD800', 'a'.repeat(63), 'a'.repeat(64), 'a'.repeat(65), 'ø'.repeat(21), 'ø'.repeat(32), 'ø'.repeat(33), 'é'.repeat(64),
  `${'a'.repeat(62)}ø`, `${'\uD83D'.repeat(3)}z`, 'x'.repeat(300), 'æ'.repeat(300),
);
const anyString = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  awkwardStrings,
);
const LONG_LIMIT = 9007199254740990;

/** Values of an avsc type: every union branch, fields with defaults sometimes left out (written as their default). */
function arbitraryOf(type: avro.Type, depth = 0): fc.Arbitrary<unknown> {
  switch (type.typeName) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'int':
      return fc.oneof(fc.integer({ min: -64, max: 64 }), fc.integer());
    case 'long':
      return fc.oneof(fc.integer({ min: -64, max: 64 }), fc.integer(), fc.integer({ min: -LONG_LIMIT, max: LONG_LIMIT }),
        fc.constantFrom(LONG_LIMIT, -LONG_LIMIT, 2 ** 31, -(2 ** 31), 2 ** 30, -(2 ** 30), 2 ** 30 - 1, -(2 ** 30) - 1));
    case 'string':
      return anyString;
    case 'bytes':
      return fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b));
    case 'enum':
      return fc.constantFrom(...(type as avro.types.EnumType).symbols);
    case 'array':
      return fc.array(arbitraryOf((type as avro.types.ArrayType).itemsType, depth + 1), { maxLength: depth > 2 ? 2 : 6 });
    case 'union:unwrapped':
      return fc.oneof(...(type as avro.types.UnwrappedUnionType).types.map((t) => arbitraryOf(t, depth + 1)));
    case 'record': {
      const fields = (type as avro.types.RecordType).fields;
      const shape = Object.fromEntries(fields.map((f) => [f.name, arbitraryOf(f.type, depth + 1)]));
      return fc.record(shape, { requiredKeys: fields.filter((f) => f.defaultValue() === undefined).map((f) => f.name) });
    }
    default:
      throw new Error(`no generator for ${type.typeName}`);
  }
}

describe('the compiled codec of every schema version', () => {
  it.each(catalog.entries.map((e) => [`${e.subject} v${e.version}`, e] as const))('compiles %s (no schema of ours falls back to avsc)', (_, entry) => {
    expect(compileAvro(entry.type)).not.toBeNull();
  });

  it.each(catalog.entries.map((e) => [`${e.subject} v${e.version}`, e] as const))(
    'writes avsc\'s bytes and reads what avsc reads: %s (property)',
    (_, entry) => {
      const codec = compileAvro(entry.type)!;
      fc.assert(fc.property(arbitraryOf(entry.type), (value) => {
        const expected = entry.type.toBuffer(value);
        const written = Buffer.from(codec.encode(value));
        expect(written.equals(expected), `${entry.subject}: ${written.toString('hex')} vs ${expected.toString('hex')}`).toBe(true);
        expect(codec.decode(expected)).toEqual(entry.type.fromBuffer(expected));
      }), { seed: SEED, numRuns: 150 });
    },
  );

  it('writes the hot fields (rows, slim results) as avsc does on the pipeline\'s own values', () => {
    const rowsType = (catalog.latest('checks.rows-dk.robinson.checks.RowsChunk')!.type as avro.types.RecordType).field('rows').type;
    const resultsRecord = catalog.latest('checks.results-dk.robinson.checks.ResultsChunk')!.type as avro.types.RecordType;
    const slimType = (resultsRecord.field('slim_results').type as avro.types.UnwrappedUnionType).types[1];
    const rows = [
      { row: 0, person: toAvroPerson({ name: 'Søren Ærø Hansen', address: 'Åbenrå 3, 6200 Aabenraa', id: 'r0' }), cells: ['Søren', null, ''] },
      { row: 1, person: toAvroPerson({}), cells: null },
    ];
    expect(Buffer.from(compileAvro(rowsType)!.encode(rows)).equals(rowsType.toBuffer(rows))).toBe(true);
    const chunk = sampleEvents['checks.results-dk.robinson.checks.ResultsChunk'] as { results: Parameters<typeof toSlim>[0] };
    const slim = toSlim(chunk.results);
    expect(Buffer.from(compileAvro(slimType)!.encode(slim)).equals(slimType.toBuffer(slim))).toBe(true);
  });

  it('refuses what avsc refuses (property over values of any shape)', () => {
    const types = catalog.entries.map((e) => e.type);
    fc.assert(fc.property(fc.constantFrom(...types), fc.anything({ maxDepth: 2 }), (type, value) => {
      const codec = compileAvro(type)!;
      if (type.isValid(value)) expect(Buffer.from(codec.encode(value)).equals(type.toBuffer(value))).toBe(true);
      else expect(() => codec.encode(value)).toThrow();
    }), { seed: SEED, numRuns: 500 });
  });

  it('refuses a wrong value at every kind of field', () => {
    const entry = catalog.latest('checks.rows-dk.robinson.checks.RowsChunk')!;
    const good = { ...(sampleEvents[entry.subject] as Record<string, unknown>) };
    const codec = compileAvro(entry.type)!;
    expect(() => codec.encode(good)).not.toThrow();
    const bad: Array<Record<string, unknown>> = [
      { chunk: 1.5 }, { chunk: 2 ** 60 }, { chunk: '3' }, { stop_level: 2 ** 31 }, { job_id: 5 }, { mode: 'sandbox' },
      { check_people: 1 }, { rows: 'x' }, { org_id: 7 }, { org_id: undefined, job_id: undefined }, { sealed_rows: 'not bytes' },
      { rows: [{ row: 0, person: 'x', cells: null }] }, { rows: [{ row: 0, person: {}, cells: [3] }] },
    ];
    for (const change of bad) {
      const value = { ...good, ...change };
      expect(entry.type.isValid(value), JSON.stringify(change)).toBe(false);
      expect(() => codec.encode(value), JSON.stringify(change)).toThrow();
    }
  });

  it('refuses cut and trailing bytes, a count larger than the bytes, an enum or union index out of range', () => {
    const entry = catalog.latest('checks.rows-dk.robinson.checks.RowsChunk')!;
    const codec = compileAvro(entry.type)!;
    const bytes = entry.type.toBuffer(sampleEvents[entry.subject]);
    for (let cut = 0; cut < bytes.length; cut++) expect(() => codec.decode(bytes.subarray(0, cut))).toThrow();
    expect(() => codec.decode(Buffer.concat([bytes, Buffer.from([0])]))).toThrow();
    const arrays = compileAvro(entry.type.schema() ? (entry.type as avro.types.RecordType).field('rows').type : entry.type)!;
    expect(() => arrays.decode(Buffer.from([0x7e, 0]))).toThrow(); // 63 items in 1 byte
    const status = compileAvro((catalog.latest('checks.results-dk.robinson.checks.ResultsChunk')!.type as avro.types.RecordType).field('results').type)!;
    expect(() => status.decode(Buffer.from([2, 0, 0, 0, 0x10]))).toThrow();
  });

  it('reads short strings through its table of recent ones right, whatever shares a slot', () => {
    const type = (catalog.latest('checks.rows-dk.robinson.checks.RowsChunk')!.type as avro.types.RecordType).field('rows').type;
    const codec = compileAvro(type)!;
    // 20,000 distinct short strings (five times the table), some differing in one byte, some non-ASCII, read twice.
    const texts = Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? `${i}` : i % 3 === 1 ? `Vej ${i % 977}ø${i}` : `x${'y'.repeat(i % 15)}`));
    const rows = texts.map((text, row) => ({ row, person: toAvroPerson({ name: text, city: texts[(row * 7) % texts.length] }), cells: [text, ''] }));
    const bytes = type.toBuffer(rows);
    const expected = type.fromBuffer(bytes);
    expect(codec.decode(bytes)).toEqual(expected);
    expect(codec.decode(bytes)).toEqual(expected);
  });

  it('grows its buffer for a value larger than it, and each encode starts afresh', () => {
    const type = (catalog.latest('checks.rows-dk.robinson.checks.RowsChunk')!.type as avro.types.RecordType).field('rows').type;
    const codec = compileAvro(type)!;
    const big = Array.from({ length: 3000 }, (_, row) => ({ row, person: toAvroPerson({ name: `Navn ${'æ'.repeat(row % 70)}`, address: 'x'.repeat(row % 130) }), cells: null }));
    expect(Buffer.from(codec.encode(big)).equals(type.toBuffer(big))).toBe(true);
    expect(Buffer.from(codec.encode([])).equals(type.toBuffer([]))).toBe(true);
    expect(Buffer.from(codec.encode(big, 5)).subarray(5).equals(type.toBuffer(big))).toBe(true);
  });
});

describe('the static registry through the compiled codecs', () => {
  const registry = createStaticSchemaRegistry(catalog);

  it.each([...catalog.bySubject.keys()].map((s) => [s] as const))('frames avsc\'s bytes under the latest id: %s (property)', async (subject) => {
    const latest = catalog.latest(subject)!;
    await fc.assert(fc.asyncProperty(arbitraryOf(latest.type), async (value) => {
      const encoded = await registry.encode(subject, value);
      expect(encoded.equals(frame(latest.id, latest.type.toBuffer(value)))).toBe(true);
      expect((await registry.decode(encoded)).value).toEqual(latest.type.fromBuffer(latest.type.toBuffer(value)));
    }), { seed: SEED, numRuns: 60 });
  });

  it.each(catalog.entries.filter((e) => e.id !== catalog.latest(e.subject)!.id).map((e) => [`${e.subject} v${e.version}`, e] as const))(
    'reads an older version through avsc\'s resolver into the latest: %s (property)',
    async (_, writer) => {
      const latest = catalog.latest(writer.subject)!;
      const resolver = latest.type.createResolver(writer.type);
      await fc.assert(fc.asyncProperty(arbitraryOf(writer.type), async (value) => {
        const bytes = frame(writer.id, writer.type.toBuffer(value));
        expect((await registry.decode(bytes)).value).toEqual(latest.type.fromBuffer(writer.type.toBuffer(value), resolver));
      }), { seed: SEED, numRuns: 40 });
    },
  );

  it('answers a cut message with WireFormatError', async () => {
    const subject = 'checks.rows-dk.robinson.checks.RowsChunk';
    const encoded = await registry.encode(subject, sampleEvents[subject]);
    await expect(registry.decode(encoded.subarray(0, encoded.length - 3))).rejects.toThrow(WireFormatError);
  });
});
