import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type avro from 'avsc';
import { readPeopleFromJson, readPeopleFromNdjson, type PeopleBatch } from '../../../services/ingest/people/index.ts';
import { createChunkPublisher } from '../../../services/ingest/jobs/chunk-publisher.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import type { PipelineEvent } from '../../../services/pipeline/events.ts';
import type { JobRecord } from '../../../services/platform/store/jobs-port.ts';

// docs/intake.md "Avro people": the tokenizer's Avro records of a body's people must be the bytes
// the codec writes for the people it would have made (avsc's, which the codec is held to).
const rowsType = (loadSchemaCatalog().latest('checks.rows-dk.robinson.checks.RowsChunk')!.type as avro.types.RecordType).field('rows').type;
const encoder = new TextEncoder();

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
  yield bytes.subarray(from);
}

const job = {
  id: '6f1c2a8e-0d9b-4c3e-8a71-2b5d4e6f7a80', org_id: 'org-1', mode: 'live', source: 'api', options: {},
  list_version: { id: 'lv-1' }, private_list_version_id: null, row_count: 0, delete_after: '2026-12-31T00:00:00.000Z', created_at: '2026-11-28T00:00:00.000Z',
} as unknown as JobRecord;

/** The RowsChunks a publisher makes of `batches`, and the rows' Avro bytes of each. */
async function chunksOf(batches: PeopleBatch[], encoded: boolean): Promise<Array<{ rows: number; avro: Buffer }>> {
  const published: PipelineEvent[] = [];
  // A chunk's rows_avro is valid until its publish settles (its buffer is used again): kept as copies.
  const kept = (event: PipelineEvent): PipelineEvent => (event.type === 'RowsChunk' && event.value.rows_avro
    ? { ...event, value: { ...event.value, rows_avro: Buffer.from(event.value.rows_avro) } } : event);
  const publisher = createChunkPublisher({ job, locale: 'da', chunkRows: 4, publish: async (events) => void published.push(...[events].flat().map(kept)) });
  for (const batch of batches) {
    const sizes = batch.jsonLengths!.map((length, i) => (length >= 0 ? length : JSON.stringify(batch[i]).length));
    await publisher.add(batch, new Array(batch.length).fill(null), sizes, encoded ? batch.avro : undefined);
  }
  await publisher.complete('', '2026-11-28T00:00:00.000Z');
  return published.flatMap((e) => (e.type === 'RowsChunk' ? [e.value] : [])).map((value) => {
    if (encoded) {
      expect(value.rows).toEqual([]);
      return { rows: (rowsType.fromBuffer(value.rows_avro!) as unknown[]).length, avro: value.rows_avro! };
    }
    return { rows: value.rows.length, avro: rowsType.toBuffer(value.rows) };
  });
}

async function read(body: Uint8Array, cuts: number[], ndjson: boolean, encodeAvro: boolean): Promise<PeopleBatch[]> {
  const options = { batchSize: 3, unknownFields: 'ignore' as const, encodeAvro };
  const reader = ndjson ? readPeopleFromNdjson(chunked(body, cuts), options) : readPeopleFromJson(chunked(body, cuts), options);
  const batches: PeopleBatch[] = [];
  for await (const batch of reader) batches.push(batch);
  return batches;
}

describe('the Avro people the tokenizer writes (docs/intake.md "Avro people")', () => {
  const fields = ['id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city', 'kvhx', 'phone', 'cvr', 'company_name'];
  // A value as written in the body: any text, Danish letters (å also decomposed), long ones, or escapes of every kind.
  const rawValue = fc.oneof(
    fc.string({ maxLength: 12, unit: 'binary' }).map((value) => JSON.stringify(value)),
    fc.constantFrom('""', '"Søren Ærø"', '"Århus"', '"A\u030arhus"', '"Vesterbrogade 12, 3. tv"', `"${'ø'.repeat(70)}"`, `"${'x'.repeat(200)}"`, `"${'😀'.repeat(100)}"`),
    fc.array(fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\n', '\\t', '\\u0041', '\\u00e6', '\\u0001', '\\u2028', '\\ud83d\\ude00', 'æø', '😀', 'x', 'a\u030a'), { maxLength: 6 })
      .map((parts) => `"${parts.join('')}"`),
  );
  // Keys: known ones plainly (some given twice), a known one with an escape, an unknown one (ignored).
  const rawKey = fc.oneof(fc.constantFrom(...fields).map((key) => `"${key}"`), fc.constant('"n\\u0061me"'), fc.constant('"extra"'));
  const personText = fc.array(fc.tuple(rawKey, rawValue, fc.constantFrom('', ' ')), { maxLength: 8 })
    .map((pairs) => `{${pairs.map(([key, value, space]) => `${space}${key}${space}:${value}`).join(',')}}`);

  it('are the bytes of the people the object path makes, chunk by chunk, and no person is made where its length was counted', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(personText, { minLength: 1, maxLength: 20 }), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), async (texts, rawCuts, ndjson) => {
        const body = encoder.encode(ndjson ? texts.join('\n') : `{"people":[${texts.join(',')}]}`);
        const cuts = rawCuts.map((n) => n % (body.length + 1));
        const objects = await read(body, cuts, ndjson, false);
        const records = await read(body, cuts, ndjson, true);
        expect(records.map((b) => b.length)).toEqual(objects.map((b) => b.length));
        for (const [b, batch] of records.entries()) {
          expect(batch.jsonLengths).toEqual(objects[b].jsonLengths);
          expect(batch.avro!.ends).toHaveLength(batch.length);
          for (let i = 0; i < batch.length; i++) {
            if (batch.jsonLengths![i] >= 0) expect(batch[i]).toBeUndefined();
            else expect(batch[i]).toEqual(objects[b][i]);
          }
        }
        const expected = await chunksOf(objects, false);
        const actual = await chunksOf(records, true);
        expect(actual.map((c) => c.rows)).toEqual(expected.map((c) => c.rows));
        for (const [c, chunk] of actual.entries()) expect(chunk.avro.equals(expected[c].avro)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuse a bad row with the same error as the object path (a null field, a number, a long value)', async () => {
    for (const text of ['{"name":null}', '{"name":"A","city":3}', `{"name":"${'x'.repeat(201)}"}`, '{"name":"A\\u12"}']) {
      const body = encoder.encode(`{"people":[{"name":"Søren"},${text}]}`);
      const errorOf = (encodeAvro: boolean) => read(body, [], false, encodeAvro).then(() => null, (error: unknown) => error);
      const [objects, records] = [await errorOf(false), await errorOf(true)];
      expect(objects).not.toBeNull();
      expect(records).toEqual(objects);
      expect((records as { path: string }).path).toMatch(/^people\[1\]/);
    }
  });
});
