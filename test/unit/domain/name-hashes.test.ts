import { describe, expect, it } from 'vitest';
import { letterSet, MAX_KEY } from '../../../services/domain/edit-distance.ts';
import { createFingerprintTable } from '../../../services/domain/fingerprint-table.ts';
import { preparedPersonWords, readPersonNameHashed } from '../../../services/domain/name-agreement.ts';
import { newNameHashes, newNameWords, readNameHashes, readNameInto, wordOf } from '../../../services/domain/name.ts';
import type { ListEntry, PersonInput } from '../../../services/domain/types.ts';
import { skeleton } from '../../../services/domain/normalize.ts';
import { createRng, generateListEntries, generatePeople, variantOf } from '../../../services/synthetic/index.ts';
import { buildCorpus } from '../../support/matching-corpus.ts';

/**
 * checkPerson reads a name as hashes of its words (name.ts readNameHashes, normalize.ts
 * tokenizeHashed) and looks the words up by them (fingerprint-table.ts getHashed); everything else
 * reads it as strings (readNameInto, FingerprintTable.get). Both must be one reading: the same
 * words in the same runs, the same id for every word (docs/matching.md "Speed of the check path").
 */

const written: PersonInput[] = [
  { name: 'Hansen, Anne' }, { name: 'Hansen,Anne Møller' }, { name: ', Anne Hansen' }, { name: 'Friis Sørensen, Bodil' },
  { name: 'Anne-Marie Holm-Jensen' }, { name: 'Preben Møller-Nielsen' }, { name: 'Steen Knud Østergaard' },
  { name: 'S. Østergaard' }, { name: 'Åse Ågård' }, { name: 'A\u030ase A\u030agård' }, { name: 'JØRN THYGESEN' },
  { name: 'aksel bech schmidt' }, { name: ' Jens  Bruun, ' }, { name: 'Ole  Storm Brøndum,' }, { name: 'Hansen' },
  { name: 'Jörgensen Straße Œdipus Ðorđe Þór Łukasz' }, { name: 'Zoë Ñúñez Ærø' }, { name: 'Soeren Soerensen Aase Aagaard' },
  { name: 'Sorensen Saa Maaa Ooeoe oe aa' }, { name: 'Ǆemal ǅ ǆ ﬃ İlker ß' }, { name: 'Li 李 Ωmega 😀 Smith' },
  { name: 'Anna\u00a0Berg\tHolm\nLund' }, { name: 'x'.repeat(3) + ' y'.repeat(60) }, { name: 'É'.repeat(2) + ' e\u0301'.repeat(45) },
  { name: '123 456' }, { name: '' }, { name: '   ' }, { name: ',,,' }, { first_name: 'Anne', last_name: 'Hansen' },
  { first_name: 'Anne Møller', last_name: 'Holm-Jensen' }, { first_name: '', last_name: 'Hansen' }, { first_name: 'Anne' },
  { first_name: 'Anne', name: 'Bo Berg' }, { last_name: 'Berg', name: 'Bo Holm' }, { last_name: '  ', first_name: 'Ib' },
  { name: 'Ærøskøbing' + 'abcdefghijklmnopqrstuvwxyzæøåäöüß'.repeat(3) + ' ÆRØ-HANSEN' },
  { name: 42 as unknown as string }, { first_name: ['Anne'] as unknown as string }, {},
];

function people(): Array<PersonInput | ListEntry> {
  const rng = createRng('name-hashes');
  const entries = [...generateListEntries(3000, 'name-hashes')];
  const corpus = buildCorpus('name-hashes');
  return [
    ...entries, ...entries.map((entry) => variantOf(entry, rng)), ...generatePeople(3000, 'name-hashes'),
    ...corpus.entries, ...corpus.rows.map((row) => row.person), ...written,
  ];
}

describe('a name read as hashes is the name read as words', () => {
  it('the same words in the same runs, and the same id for every word', () => {
    const all = people();
    const table = createFingerprintTable();
    const words = newNameWords();
    // Half the people's words are the list's: the other half looks up words it has and words it has not.
    for (let p = 0; p < all.length; p += 2) {
      if (readNameInto(all[p], words)) for (let i = 0; i < words.count; i++) table.intern(words.words[i]);
    }
    const hashes = newNameHashes();
    let known = 0;
    let unknown = 0;
    for (const person of all) {
      const named = readNameInto(person, words);
      expect(readNameHashes(person, hashes)).toBe(named);
      if (!named) continue;
      expect([hashes.count, hashes.middleFrom, hashes.surnameFrom]).toEqual([words.count, words.middleFrom, words.surnameFrom]);
      for (let i = 0; i < words.count; i++) {
        expect(wordOf(hashes, i)).toBe(words.words[i]);
        const id = table.get(words.words[i]);
        expect(table.getHashed(hashes.hashA[i], hashes.hashB[i])).toBe(id);
        if (id >= 0) known++;
        else unknown++;
      }
    }
    expect(known).toBeGreaterThan(10_000);
    expect(unknown).toBeGreaterThan(100);
  });
});

describe('the words the tolerant comparison reads', () => {
  it('are the skeletons of the words as strings, cut at MAX_KEY, with the letter set of the whole skeleton', () => {
    const hashes = newNameHashes();
    const table = createFingerprintTable();
    let compared = 0;
    let long = 0;
    for (const person of people()) {
      if (!readNameHashes(person, hashes) || hashes.count > 40) continue;
      readPersonNameHashed(hashes, table);
      const prepared = preparedPersonWords();
      const words: string[] = [];
      const letters: number[] = [];
      for (let i = 0; i < hashes.count; i++) {
        const key = skeleton(wordOf(hashes, i));
        if (key.length > MAX_KEY) long++;
        words.push(key.slice(0, MAX_KEY));
        letters.push(letterSet(key));
      }
      expect(prepared).toEqual({ words, letters });
      compared += hashes.count;
    }
    expect(compared).toBeGreaterThan(20_000);
    expect(long).toBeGreaterThan(0);
  });
});
