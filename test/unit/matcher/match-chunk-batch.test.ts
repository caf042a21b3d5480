import { describe, expect, it } from 'vitest';
import { applyPrivateList, buildListIndex, checkPerson, type ListIndex } from '../../../services/domain/index.ts';
import type { CheckOptions, ListEntry, ListVersionRef, PersonInput } from '../../../services/domain/types.ts';
import { matchChunk, type PrivateList } from '../../../services/matcher/match-chunk.ts';
import { fromAvroPerson, toAvroPerson, type RowsChunkEvent } from '../../../services/pipeline/events.ts';
import { createRng, generateListEntries, generatePeople, variantOf } from '../../../services/synthetic/index.ts';

/**
 * A live person-only chunk is checked as one batch, or 128 rows a call when the embedded matcher
 * writes the results' lines (match-chunk.ts livePeople, livePeopleWithLines → check.ts checkPeople; docs/matching.md
 * "Speed of the check path"). Each row's result must be what the row checked alone gives:
 * checkPerson against the pinned list and, with a private list pinned, applyPrivateList over
 * both, in the chunk's order, across the batch's phases (128 rows).
 */

const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };
const PRIVATE_VERSION: ListVersionRef = { id: 'private-version', source: 'customer', published_on: '2026-11-01' };

function chunkOf(people: PersonInput[], privateVersion: string | null): RowsChunkEvent {
  return {
    job_id: 'job', chunk: 0, org_id: 'org', mode: 'live', list_version_id: 'national-version', policy: OPTIONS.policy,
    stop_level: OPTIONS.stopLevel, locale: OPTIONS.locale, private_list_version_id: privateVersion,
    check_people: true, check_companies: false, check_phones: false, company_register_version_id: null,
    phone_directory_version_id: null, address_register_version_id: null,
    rows: people.map((person, i) => ({ row: 1000 + i, person: toAvroPerson(person), cells: null })),
  };
}

function expected(person: PersonInput, national: ListIndex, privateList: PrivateList | null) {
  const result = checkPerson(national, person, OPTIONS);
  return privateList ? applyPrivateList(result, checkPerson(privateList.index, person, OPTIONS), privateList.version) : result;
}

describe('matchChunk, person-only live chunks as one batch', () => {
  const entries = [...generateListEntries(2_000, 'match-chunk-batch')];
  const national = buildListIndex(entries.filter((_, i) => i % 2 === 0));
  // The private list holds the other half and a few national entries, so both lists decide rows.
  const privateEntries: ListEntry[] = entries.filter((_, i) => i % 2 === 1 || i % 10 === 0);
  const privateList: PrivateList = { index: buildListIndex(privateEntries), version: PRIVATE_VERSION };
  const rng = createRng('match-chunk-batch:variants');
  const people: PersonInput[] = [
    ...entries.filter((_, i) => i % 7 === 0).map((entry, i) => ({ ...variantOf(entry, rng), id: `member-${i}` })),
    ...generatePeople(150, 'match-chunk-batch'),
    { id: 'no-name', address: 'Vestergade 3, 5000 Odense' }, { id: 'no-address', name: 'Anne Hansen' }, {},
  ];
  // The person as the matcher reads it from the chunk (null fields dropped).
  const rows = chunkOf(people, null).rows.map((row) => fromAvroPerson(row.person));

  it('answers each row as checked alone against the pinned list, in order', () => {
    const out = matchChunk(chunkOf(people, null), national);
    expect(out.results.map((r) => r.row)).toEqual(people.map((_, i) => 1000 + i));
    const results = out.results.map((r) => r.result);
    expect(results.filter((r) => (r.match.level ?? 0) >= 4).length).toBeGreaterThan(100); // members found: rows were matched
    expect(results).toEqual(rows.map((person) => expected(person, national, null)));
  });

  it('with a private list, answers each row as applyPrivateList over both checks alone', () => {
    const results = matchChunk(chunkOf(people, PRIVATE_VERSION.id), national, privateList).results.map((r) => r.result);
    const onPrivate = results.filter((r) => r.list_version?.id === PRIVATE_VERSION.id).length;
    expect(onPrivate).toBeGreaterThan(50); // the private list decided rows the national one does not hold
    expect(results).toEqual(rows.map((person) => expected(person, national, privateList)));
  });

  it('with lines (the embedded matcher), each row carries JSON.stringify of its final result, made from it', () => {
    for (const [privateVersion, list] of [[null, null], [PRIVATE_VERSION.id, privateList]] as const) {
      const out = matchChunk(chunkOf(people, privateVersion), national, list, undefined, true);
      expect(out.results.map((r) => r.result)).toEqual(rows.map((person) => expected(person, national, list)));
      for (const r of out.results) {
        expect(r.line?.of).toBe(r.result);
        expect(r.line?.text).toBe(JSON.stringify(r.result));
      }
    }
    expect(matchChunk(chunkOf(people, null), national).results.every((r) => r.line === undefined)).toBe(true);
  });
});
