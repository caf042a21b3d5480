/**
 * Shared material of the pipeline tests (matcher, projection, end-to-end): a small activated list
 * version, and a job of mixed rows whose expected level is known for every row.
 */
import { randomUUID } from 'node:crypto';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import type { ListStore, ListVersion } from '../../services/platform/store/lists-port.ts';

/** One list member; the people below are checked against her. */
export const LIST_ENTRIES: ListEntry[] = [
  { name: 'Hansen,Anne', address: 'Nørregade 7, 2. th, 5000 Odense' },
  { name: 'Berg,Ib', address: 'Strandvejen 100, 2900 Hellerup' },
];

/** Creates, fills (in chunks), seals and activates a cpr list version; returns it. */
export async function seedListVersion(lists: ListStore, entries: Iterable<ListEntry> = LIST_ENTRIES): Promise<ListVersion> {
  const id = randomUUID();
  await lists.createListVersion({
    id, source: 'cpr', org_id: null, published_on: '2026-01-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0,
  });
  let chunk: ListEntry[] = [];
  for (const entry of entries) {
    chunk.push(entry);
    if (chunk.length === 10_000) {
      await lists.appendListEntries(id, chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await lists.appendListEntries(id, chunk);
  await lists.sealListVersion(id);
  return lists.activateListVersion(id, new Date().toISOString());
}

/** A person and the match level live matching gives against LIST_ENTRIES (null: no level). */
export interface MixedRow {
  person: PersonInput;
  level: number | null;
}

const KINDS: MixedRow[] = [
  { person: { name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' }, level: 5 },
  { person: { name: 'Anne Hansen', address: 'Nørregade 7, 1. th, 5000 Odense' }, level: 4 },
  { person: { name: 'Anne Jensen', address: 'Nørregade 7, 2. th, 5000 Odense' }, level: 3 },
  { person: { first_name: 'Peter', last_name: 'Hansen', street: 'Nørregade', house_number: '7', floor: '2', door: 'th', postal_code: '5000', city: 'Odense' }, level: 2 },
  { person: { name: 'Peter Jensen', address: 'Nørregade 7, 2. th, 5000 Odense' }, level: 1 },
  { person: { name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }, level: 0 },
  { person: { name: 'Anne Hansen', address: '?' }, level: null },
  { person: { address: 'Nørregade 7, 2. th, 5000 Odense' }, level: null },
];

/** `count` rows cycling through every kind (levels 0-5, unreadable, no name), each with its id. */
export function mixedRows(count: number): MixedRow[] {
  return Array.from({ length: count }, (_, row) => {
    const kind = KINDS[row % KINDS.length];
    return { person: { id: `row-${row}`, ...kind.person }, level: kind.level };
  });
}

/** What test keys give (DECISIONS §3): the surname picks the level. */
export function mixedTestRows(count: number): MixedRow[] {
  const surnames: Array<[string, number]> = [['Robinson', 5], ['Bygning', 4], ['Fornavn', 3], ['Efternavn', 2], ['Husstand', 1], ['Jensen', 0]];
  return Array.from({ length: count }, (_, row) => {
    const k = row % 8;
    if (k === 6) return { person: { id: `row-${row}`, name: 'Anne Robinson', address: '?' }, level: null };
    if (k === 7) return { person: { id: `row-${row}`, address: 'Vestergade 3, 5000 Odense' }, level: null };
    const [surname, level] = surnames[k];
    return { person: { id: `row-${row}`, name: `Anne ${surname}`, address: 'Vestergade 3, 5000 Odense' }, level };
  });
}
