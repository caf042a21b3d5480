import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IntakeError, readPeopleFromJson, readPeopleFromNdjson, type IntakeLimits, type PeopleBatch } from '../../../services/ingest/people/index.ts';
import type { JsonIntakeOptions } from '../../../services/ingest/people/index.ts';
import { apiErrorOfIntake } from '../../../services/api/jobs/intake-issues.ts';
import type { PersonInput } from '../../../services/domain/types.ts';

const encoder = new TextEncoder();

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
  yield bytes.subarray(from);
}

function input(text: string | Uint8Array, cuts: number[] = []): AsyncGenerator<Uint8Array> {
  return chunked(typeof text === 'string' ? encoder.encode(text) : text, cuts);
}

async function drain<S>(gen: AsyncGenerator<PersonInput[], S>) {
  const people: PersonInput[] = [];
  const batches: number[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { people, batches, summary: step.value };
    batches.push(step.value.length);
    people.push(...step.value);
  }
}

async function readJson(text: string | Uint8Array, cuts: number[] = [], options: JsonIntakeOptions = {}) {
  return drain(readPeopleFromJson(input(text, cuts), options));
}

async function readNdjson(text: string | Uint8Array, cuts: number[] = [], limits: IntakeLimits = {}) {
  return drain(readPeopleFromNdjson(input(text, cuts), limits));
}

async function jsonError(text: string | Uint8Array, options: JsonIntakeOptions = {}): Promise<IntakeError> {
  try {
    await readJson(text, [], options);
  } catch (error) {
    if (error instanceof IntakeError) return error;
    throw error;
  }
  throw new Error('expected an IntakeError');
}

async function ndjsonError(text: string, limits: IntakeLimits = {}): Promise<IntakeError> {
  try {
    await readNdjson(text, [], limits);
  } catch (error) {
    if (error instanceof IntakeError) return error;
    throw error;
  }
  throw new Error('expected an IntakeError');
}

const danish: PersonInput[] = [
  { id: 'a1', name: 'Søren Ærø Åberg', address: 'Gl. Kongevej 1, 1. tv, 1610 København V' },
  { first_name: 'Åse', last_name: 'Bøgh', street: 'Ålborggade', house_number: '12A', postal_code: '8000', city: 'Århus' },
];

describe('readPeopleFromJson', () => {
  it('reads people and the other fields, before and after people', async () => {
    const body = JSON.stringify({ callback_url: 'https://x.test/cb', people: danish, policy: 'strict', options: { stop_level: 2 } });
    const seen: string[] = [];
    const { people, summary } = await readJson(body, [], { onField: (name) => seen.push(name) });
    expect(people).toEqual(danish);
    expect(summary).toEqual({
      fields: { callback_url: 'https://x.test/cb', policy: 'strict', options: { stop_level: 2 } },
      peopleCount: 2,
    });
    expect(seen).toEqual(['callback_url', 'policy', 'options']);
  });

  it('gives the same result when the UTF-8 document is split at every byte offset', async () => {
    const body = encoder.encode(
      JSON.stringify({ external_ref: 'æøå-ref', people: danish, options: { note: ['å', 1, null, true] } }, null, 1),
    );
    const expected = await readJson(body);
    expect(expected.people).toEqual(danish);
    for (let cut = 0; cut <= body.length; cut += 1) {
      expect(await readJson(body, [cut])).toEqual(expected);
    }
    // and into single bytes
    expect(await readJson(body, Array.from({ length: body.length }, (_, i) => i))).toEqual(expected);
  });

  it('decodes escapes and surrogate pairs, and tolerates whitespace anywhere between tokens', async () => {
    const body =
      ' \n\t{ "people" :\r\n [ { "name" : "\\u00e6bler \\"Ø\\" \\\\ \\/ \\b\\f\\n\\r\\t" ,"city":"\\ud83d\\ude00 \u{1F600}" } ] ,' +
      ' "external_ref" : "x" } \n';
    const { people } = await readJson(body, [3, 17, 30, 41, 77]);
    expect(people).toEqual([{ name: 'æbler "Ø" \\ / \b\f\n\r\t', city: '😀 😀' }]);
  });

  it('decodes escapes split at every offset, surrogate pairs included', async () => {
    const body = encoder.encode(
      '{"people":[{"name":"\\u00e6\\u00F8\\u00e5 \\"q\\" \\\\","city":"\\ud83d\\ude00x"}]}',
    );
    const expected = [{ name: 'æøå "q" \\', city: '😀x' }];
    for (let cut = 0; cut <= body.length; cut += 1) {
      expect((await readJson(body, [cut])).people).toEqual(expected);
    }
  });

  it('refuses a lone surrogate escape (docs/api-decisions.md "Unicode"), split at every offset', async () => {
    const body = encoder.encode('{"people":[{"name":"A","city":"\\ud83d\\ude00\\ud800x"}]}');
    for (let cut = 0; cut <= body.length; cut += 1) {
      await expect(readJson(body, [cut])).rejects.toMatchObject({ code: 'invalid_json', path: 'people[0].city' });
    }
    await expect(readJson(JSON.stringify({ people: [{ name: '\udc00\ud800' }] }))).rejects.toMatchObject({ code: 'invalid_json' });
  });

  it('streams: the first batch comes out long before the source is read to the end', async () => {
    let pulled = 0;
    const total = 200;
    async function* source() {
      yield encoder.encode('{"people":[');
      for (let i = 0; i < total; i += 1) {
        pulled += 1;
        const people = Array.from({ length: 100 }, (_, j) => JSON.stringify({ id: `${i}-${j}`, name: 'A B' }));
        yield encoder.encode((i > 0 ? ',' : '') + people.join(','));
      }
      yield encoder.encode(']}');
    }
    const gen = readPeopleFromJson(source(), { batchSize: 500 });
    const first = await gen.next();
    expect(first.done).toBe(false);
    expect(pulled).toBeLessThan(10);
    let count = first.done ? 0 : first.value.length;
    for await (const batch of gen) count += batch.length;
    expect(count).toBe(total * 100);
  });

  it('yields batches of the chosen size and a BOM is ignored', async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ id: String(i) }));
    const body = '\uFEFF' + JSON.stringify({ people: many });
    const { people, batches } = await readJson(body, [], { batchSize: 10 });
    expect(batches).toEqual([10, 10, 5]);
    expect(people).toEqual(many);
  });

  it('reports errors with a path and no personal data', async () => {
    const cases: Array<[string, string, string, JsonIntakeOptions?]> = [
      ['{"people":[{"name":"Søren Hansen"},{"name":12}]}', 'not_a_string', 'people[1].name'],
      ['{"people":[{"name":"Søren Hansen","address":null}]}', 'not_a_string', 'people[0].address'],
      [`{"people":[{"city":"${'å'.repeat(201)}"}]}`, 'string_too_long', 'people[0].city'],
      ['{"people":[{"name":"Søren"},{"nmae":"Søren Hansen"}]}', 'unknown_field', 'people[1].nmae'],
      ['{"people":[{"Søren Hansen":"x"}]}', 'unknown_field', 'people[0]'],
      ['{"people":[{"name":"Søren"},{"name":"Søren"}]}', 'too_many_people', 'people', { maxPeople: 1 }],
      ['{"people":[]}', 'too_few_people', 'people'],
      ['{"policy":"strict"}', 'missing_people', 'people'],
      ['{"people":{"name":"Søren"}}', 'not_an_array', 'people'],
      ['{"people":["Søren"]}', 'not_an_object', 'people[0]'],
      ['[{"name":"Søren"}]', 'not_an_object', ''],
      ['"Søren"', 'not_an_object', ''],
      ['<people/>', 'invalid_json', ''],
      ['{"people":[{"name":"Søren"}],"people":[]}', 'duplicate_field', 'people'],
      ['{"people":[{"name":"Søren"}]', 'invalid_json', ''],
      ['{"people":[{"name":"Søren"', 'invalid_json', 'people[0]'],
      ['{"people":[{"name":"Søren"},]}', 'not_an_object', 'people[1]'],
      ['{"people":[{"name":"Søren",}]}', 'invalid_json', 'people[0]'],
      ['{"people":[{"name":"Sø\\xren"}]}', 'invalid_json', 'people[0].name'],
      ['{"people":[{"name":"Sø\nren"}]}', 'invalid_json', 'people[0].name'],
      ['{"people":[{"name":"Søren"}]} x', 'invalid_json', ''],
      ['{"people":[{"name":"Søren"}],"policy":Søren}', 'invalid_json', 'policy'],
      ['', 'invalid_json', ''],
    ];
    for (const [body, code, path, options] of cases) {
      const error = await jsonError(body, options);
      expect({ body, code: error.code, path: error.path }).toEqual({ body, code, path });
      expect(error.message).not.toMatch(/Søren|Hansen|å{3}/);
    }
  });

  it('ignores unknown person fields when asked to', async () => {
    const { people } = await readJson('{"people":[{"name":"A","extra":"B"}]}', [], { unknownFields: 'ignore' });
    expect(people).toEqual([{ name: 'A' }]);
  });

  it('refuses bytes that are not UTF-8, and 400 vs 422 follows the kind of error', async () => {
    const bytes = new Uint8Array([...encoder.encode('{"people":[{"name":"'), 0xff, 0xfe, ...encoder.encode('"}]}')]);
    const error = await jsonError(bytes);
    expect(error.code).toBe('invalid_utf8');
    expect(apiErrorOfIntake(error).status).toBe(400);
    expect(apiErrorOfIntake(await jsonError('{"people":[{"name":1}]}')).status).toBe(422);
    expect((await jsonError('{"people":[{"name":1}]}')).message).toBe('not_a_string at people[0].name');
  });

  it('does not deliver the last batch of a truncated body', async () => {
    const gen = readPeopleFromJson(input('{"people":[{"id":"1"},{"id":"2"}'), { batchSize: 10 });
    await expect(gen.next()).rejects.toBeInstanceOf(IntakeError);
  });

  it('round-trips arbitrary people through JSON.stringify and random chunking', async () => {
    const field = fc.string({ maxLength: 30, unit: 'binary' });
    const person = fc.record(
      { id: field, name: field, first_name: field, last_name: field, address: field, floor: field, kvhx: field, phone: field },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(person, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.option(fc.string({ unit: 'binary', maxLength: 20 }), { nil: undefined }),
        fc.boolean(),
        async (people, rawCuts, ref, pretty) => {
          const body = encoder.encode(JSON.stringify({ external_ref: ref, people, after: [ref ?? null] }, null, pretty ? 2 : 0));
          const cuts = rawCuts.map((n) => n % (body.length + 1));
          const result = await readJson(body, cuts, { minPeople: 0, batchSize: 7 });
          expect(result.people).toEqual(people);
          expect(result.summary.peopleCount).toBe(people.length);
          expect(result.summary.fields).toEqual(ref === undefined ? { after: [null] } : { external_ref: ref, after: [ref] });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the person JSON lengths counted while reading (the chunk publisher\'s row size)', () => {
  const known = ['id', 'name', 'first_name', 'address', 'postal_code', 'company_name'];
  // A value as written in the body: plain text (any code point), or with escapes of every kind.
  const rawValue = fc.oneof(
    fc.string({ maxLength: 12, unit: 'binary' }).map((value) => JSON.stringify(value)),
    fc.array(fc.oneof(
      fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\n', '\\t', '\\u0041', '\\u00e6', '\\u0001', '\\u2028', '\\ud83d\\ude00', 'æø', '😀', 'x'),
    ), { maxLength: 6 }).map((parts) => `"${parts.join('')}"`),
  );
  // Keys: known ones plainly, a known one with an escape, an unknown one (ignored).
  const rawKey = fc.oneof(fc.constantFrom(...known).map((key) => `"${key}"`), fc.constant('"n\\u0061me"'), fc.constant('"extra"'));
  const personText = fc.array(fc.tuple(rawKey, rawValue, fc.constantFrom('', ' ', '\t ')), { maxLength: 6 })
    .map((fields) => `{${fields.map(([key, value, space]) => `${space}${key}${space}:${space}${value}`).join(',')}}`);

  it('equal JSON.stringify(person).length wherever counted, and are counted for every person whose keys are plain and given once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(personText, { minLength: 1, maxLength: 20 }), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), async (texts, rawCuts, ndjson) => {
        const body = encoder.encode(ndjson ? texts.join('\n') : `{"people":[${texts.join(',')}]}`);
        const cuts = rawCuts.map((n) => n % (body.length + 1));
        const reader = ndjson
          ? readPeopleFromNdjson(input(body, cuts), { batchSize: 3, unknownFields: 'ignore' })
          : readPeopleFromJson(input(body, cuts), { batchSize: 3, unknownFields: 'ignore' });
        let index = 0;
        for await (const batch of reader as AsyncGenerator<PeopleBatch>) {
          expect(batch.jsonLengths).toHaveLength(batch.length);
          for (let i = 0; i < batch.length; i++, index++) {
            const keys = [...texts[index].matchAll(/"(id|name|first_name|address|postal_code|company_name|n\\u0061me)"\s*:/g)].map((m) => m[1]);
            const plainOnce = !keys.includes('n\\u0061me') && new Set(keys).size === keys.length;
            const counted = batch.jsonLengths![i];
            if (plainOnce) expect(counted).toBe(JSON.stringify(batch[i]).length);
            else expect([-1, JSON.stringify(batch[i]).length]).toContain(counted);
          }
        }
        expect(index).toBe(texts.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('readPeopleFromNdjson', () => {
  const ndjson = danish.map((p) => JSON.stringify(p)).join('\r\n') + '\n\n';

  it('reads one person per line, split at every byte offset', async () => {
    const bytes = encoder.encode(ndjson);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const { people, summary } = await readNdjson(bytes, [cut]);
      expect(people).toEqual(danish);
      expect(summary.peopleCount).toBe(2);
    }
  });

  it('reports errors with the line number and path', async () => {
    const cases: Array<[string, string, string, number, IntakeLimits?]> = [
      ['{"name":"Søren"}\n{"name":true}\n', 'not_a_string', 'people[1].name', 2],
      ['{"name":"Søren"}\n\n{"name":"Søren"} {"name":"Søren"}\n', 'invalid_json', 'people[1]', 3],
      ['{"name":"Søren",\n"city":"x"}\n', 'invalid_json', 'people[0]', 1],
      ['{"name":"Søren"}\n["Søren"]\n', 'not_an_object', 'people[1]', 2],
      ['{"name":"Søren"}\nnull\n', 'not_an_object', 'people[1]', 2],
      ['true\n', 'not_an_object', 'people[0]', 1],
      [`{"name":"${'ø'.repeat(201)}"}`, 'string_too_long', 'people[0].name', 1],
      ['{"name":"A"}\n{"name":"B"}\n', 'too_many_people', 'people', 2, { maxPeople: 1 }],
      ['{"name":"A"}\n{"name":"B"', 'invalid_json', 'people[1]', 2],
    ];
    for (const [body, code, path, line, limits] of cases) {
      const error = await ndjsonError(body, limits);
      expect({ code: error.code, path: error.path, line: error.line }).toEqual({ code, path, line });
      expect(error.message).toContain(`line ${line}`);
      expect(error.message).not.toMatch(/Søren|ø{3}/);
    }
    expect((await ndjsonError('\n \n')).code).toBe('too_few_people');
  });

  it('round-trips arbitrary people with random chunking', async () => {
    const field = fc.string({ maxLength: 20, unit: 'grapheme' });
    const person = fc.record({ id: field, name: field, address: field, door: field }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(fc.array(person, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), async (people, rawCuts) => {
        const body = encoder.encode(people.map((p) => JSON.stringify(p)).join('\n'));
        const cuts = rawCuts.map((n) => n % (body.length + 1));
        const result = await readNdjson(body, cuts, { batchSize: 4 });
        expect(result.people).toEqual(people);
      }),
      { numRuns: 200 },
    );
  });
});
