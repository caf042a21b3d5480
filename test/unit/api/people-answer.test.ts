import { describe, expect, it } from 'vitest';
import { writePeopleAnswer } from '../../../services/api/people-answer.ts';
import { buildListIndex, checkPeople } from '../../../services/domain/index.ts';
import type { CheckOptions, CheckResult, ListVersionRef, PersonInput } from '../../../services/domain/types.ts';
import { generateListEntries, generatePeople } from '../../../services/synthetic/index.ts';

/**
 * POST /v2/checks's answer written a step of people at a time (services/api/people-answer.ts,
 * docs/architecture.md "Synchronous checks") is byte for byte `JSON.stringify` of the whole answer:
 * with the real check on list members and strangers, and on sizes around a step, texts of every
 * UTF-8 length and answers larger than the buffer it starts with.
 */

const LIST_VERSION: ListVersionRef = { id: '00000000-0000-4000-8000-000000000001', source: 'cpr', published_on: '2026-10-01', activated_at: '2026-10-02T00:00:00.000Z' };
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };

const wholeAnswer = (results: unknown[]) => Buffer.from(JSON.stringify({ list_version: LIST_VERSION, results }), 'utf8');

describe('writePeopleAnswer', () => {
  it('writes the bytes of JSON.stringify of the whole answer, with the real check', () => {
    const entries = [...generateListEntries(2_000, 5)];
    const index = buildListIndex(entries);
    const members = entries.slice(0, 500).map(({ previous: _previous, ...entry }, i) => ({ id: `m${i}`, ...entry }));
    const people: PersonInput[] = [...members, ...generatePeople(500, 5)];
    for (const size of [1, 127, 128, 129, 1000]) {
      const some = people.slice(500 - Math.floor(size / 2), 500 - Math.floor(size / 2) + size);
      const written = writePeopleAnswer(LIST_VERSION, some, (step) => checkPeople(index, step, OPTIONS));
      expect(written.equals(wholeAnswer(checkPeople(index, some, OPTIONS))), `${size} people`).toBe(true);
    }
  });

  it('gives the check every person once, in order, and writes any text and any size the same', () => {
    // One to four UTF-8 bytes per character, escapes, and a text long enough to outgrow the buffer.
    const texts = ['', 'a', 'Søren Kjær', 'Æblevej 1, st. tv', '"quoted" \\ back\nline\t', '€ 😀 \u00a0', 'ø'.repeat(5_000)];
    const resultOf = (person: PersonInput, n: number) => ({ id: person.id, n, text: texts[n % texts.length], nothing: null, list: [n, 'x'] });
    for (const size of [1, 2, 128, 257, 1000, 3000]) {
      const people = Array.from({ length: size }, (_, i) => ({ id: `p${i}` }));
      const seen: string[] = [];
      const written = writePeopleAnswer(LIST_VERSION, people, (step) => {
        const results = step.map((person) => resultOf(person, seen.push(person.id!) - 1));
        return results as unknown as CheckResult[];
      });
      expect(seen).toEqual(people.map((p) => p.id));
      expect(written.equals(wholeAnswer(people.map(resultOf))), `${size} results`).toBe(true);
    }
    // A small answer after large ones: nothing of theirs in it.
    const small = writePeopleAnswer(LIST_VERSION, [{ id: 'only' }], () => [{ id: 'only' }] as unknown as CheckResult[]);
    expect(small.toString('utf8')).toBe(JSON.stringify({ list_version: LIST_VERSION, results: [{ id: 'only' }] }));
  });
});
