import { describe, expect, it } from 'vitest';
import { checkedAnswer } from '../../../services/api/answer-check.ts';
import { CreateChecksResponseSchema } from '../../../services/api/schemas/checks.ts';
import type { ListEntry, PersonInput } from '../../../services/domain/types.ts';
import { generateListEntries, generatePeople } from '../../../services/synthetic/index.ts';
import { CORPUS_LIST, CORPUS_PEOPLE, CORPUS_REGISTER } from '../../support/one-check-corpus.ts';
import { bearer, build, LIVE_ENTRIES } from './helper.ts';

/**
 * POST /v2/checks writes its answer as the check made it, without its zod schema on the way
 * (docs/architecture.md "Synchronous checks"). These tests hold that answer to the schema: on
 * every kind of person (list members at their current and previous address, with a slip or an
 * initial, a household, strangers, no name, an unreadable address, the register's addresses),
 * every policy and stop level, both languages, live and test keys. The app of helper.ts checks
 * each answer it writes (`checkResponses`: a 500 when it breaks the schema or its schema-parsed
 * bytes differ), and each answer is parsed with the schema here as well.
 */

const SEED = 21;
const members = [...generateListEntries(300, SEED)];

/** A list member as a caller writes them: as listed, with an initial, with a slip, and someone else at the address. */
function variantsOf(entry: ListEntry, i: number): PersonInput[] {
  const { previous: _previous, name = '', ...rest } = entry;
  // The list writes "Surname,Given names"; a caller writes given names first.
  const [last, given = ''] = name.split(',');
  const first = given.split(' ')[0];
  const slipped = first.length > 3 ? `${first[0]}${first[2]}${first[1]}${first.slice(3)}` : first;
  return [
    { id: `m${i}`, name: `${given} ${last}`, ...rest },
    { id: `m${i}-initial`, first_name: `${first[0]}.`, last_name: last, ...rest },
    { id: `m${i}-slip`, first_name: slipped, last_name: last, ...rest },
    { id: `m${i}-household`, first_name: 'Anden', last_name: 'Beboer', ...rest },
  ];
}

const PEOPLE: PersonInput[] = [
  ...members.slice(0, 120).flatMap(variantsOf),
  ...generatePeople(200, SEED),
  ...CORPUS_PEOPLE,
  { id: 'no-name', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' },
  { id: 'unreadable', name: 'Anne Hansen', address: '?' },
  { name: 'Uden Id', address: 'Nørregade 3, 1000 København K' },
  { id: 'parts', first_name: 'Søren', last_name: 'Kjær', street: 'Vestergade', house_number: '12', floor: '2', door: 'tv', postal_code: '8000', city: 'Aarhus C' },
  { id: 'kvhx', name: 'Søren Kjær', kvhx: '07511234__12__2__tv' },
  { id: 'quotes "\\ \u2028 😀', name: 'Ærø "Øst" Åsen', address: 'Åboulevarden 1, 8000 Aarhus C', phone: '+4520123456' },
];

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

describe('POST /v2/checks answers against their schema', () => {
  it('every kind of person, every policy and stop level, both languages, live and test keys', async () => {
    const { app, orgA } = await build({ liveEntries: [...LIVE_ENTRIES, ...CORPUS_LIST, ...members], registerAddresses: CORPUS_REGISTER });
    const seen = { statuses: new Set<string>(), reasons: new Set<string>(), levels: new Set<number | null>(), approximate: 0, previous: 0 };
    for (const key of [orgA.liveKey, orgA.testKey]) {
      for (const [policy, stopLevel, language] of [['standard', undefined, 'da'], ['strict', 3, 'en'], ['bdq', 5, 'da']] as const) {
        for (const people of chunks(PEOPLE, 1000)) {
          const response = await app.inject({
            method: 'POST', url: '/v2/checks', headers: { ...bearer(key), 'accept-language': language },
            payload: { people, policy, ...(stopLevel ? { stop_level: stopLevel } : {}) },
          });
          expect(response.statusCode, response.body).toBe(200);
          const answer = CreateChecksResponseSchema.parse(response.json());
          expect(answer.results).toHaveLength(people.length);
          for (const result of answer.results) {
            seen.statuses.add(result.status);
            for (const reason of result.reasons) seen.reasons.add(reason);
            seen.levels.add(result.match.level);
            if (result.match.approximate) seen.approximate++;
            if (result.match.previous_address) seen.previous++;
          }
        }
      }
    }
    // The corpus reached the shapes it is meant to: otherwise the test proves less than it says.
    expect([...seen.statuses].sort()).toEqual(['allowed', 'blocked', 'manual']);
    for (const reason of ['name_and_address', 'household', 'address_unreadable', 'no_name']) expect(seen.reasons).toContain(reason);
    for (const level of [null, 0, 1, 5]) expect(seen.levels).toContain(level);
    expect(seen.approximate).toBeGreaterThan(0);
    expect(seen.previous).toBeGreaterThan(0);
  });

  it('the same answer whatever order a person\'s fields come in (the body is taken as sent, not re-ordered by zod)', async () => {
    const { app, orgA } = await build({ liveEntries: [...LIVE_ENTRIES, ...CORPUS_LIST, ...members], registerAddresses: CORPUS_REGISTER });
    const reversed = PEOPLE.map((person) => Object.fromEntries(Object.entries(person).reverse()));
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(PEOPLE));
    for (const key of [orgA.liveKey, orgA.testKey]) {
      const answers = [];
      for (const people of [PEOPLE, reversed]) {
        const bodies = [];
        for (const chunk of chunks(people, 1000)) {
          const response = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(key), payload: { people: chunk } });
          expect(response.statusCode, response.body).toBe(200);
          bodies.push(response.body);
        }
        answers.push(bodies);
      }
      expect(answers[1]).toEqual(answers[0]);
    }
  });

  it('a 500, not a different answer, when an answer breaks its schema or would be written differently by it', () => {
    const listVersion = { id: '00000000-0000-4000-8000-000000000001', source: 'cpr', published_on: '2026-10-01' };
    const answer = { list_version: listVersion, results: [] };
    const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
    expect(() => checkedAnswer(CreateChecksResponseSchema, bytesOf(answer))).not.toThrow();
    expect(() => checkedAnswer(CreateChecksResponseSchema, bytesOf({ ...answer, extra: 1 }))).toThrow();
    expect(() => checkedAnswer(CreateChecksResponseSchema, bytesOf({ list_version: { ...listVersion, source: 'other' }, results: [] }))).toThrow();
    // Keys in another order than the schema's: valid, but the schema-parsed bytes differ.
    expect(() => checkedAnswer(CreateChecksResponseSchema, bytesOf({ results: [], list_version: listVersion }))).toThrow(/differs/);
  });
});
