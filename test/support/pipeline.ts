/**
 * Shared material of the pipeline tests (matcher, projection, end-to-end): a small activated list
 * version, and a job of mixed rows whose expected level is known for every row.
 */
import { randomUUID } from 'node:crypto';
import type { CompanyRecord, DirectoryEntry, JobRowInput } from '../../services/domain/index.ts';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import type { RegisterKind, RegisterStore, RegisterVersion } from '../../services/platform/store/registers-port.ts';
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

/** What test keys give (docs/decisions.md §3): the surname picks the level. */
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

/**
 * Company register and phone directory material for jobs with company and phone checks, checked
 * against LIST_ENTRIES: one of each row of docs/decisions.md §17.
 */
export const REGISTER_COMPANIES: CompanyRecord[] = [
  { cvr: '10150817', name: 'Beskyttet ApS', form: 'ApS', protected: true, owner: null },
  { cvr: '25313763', name: 'Hansens Frisør', form: 'ENK', protected: false, owner: { name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' } },
  { cvr: '31662834', name: 'Olsens VVS', form: 'ENK', protected: false, owner: { name: 'Ole Olsen', address: 'Vestergade 1, 8000 Aarhus C' } },
  { cvr: '29403473', name: 'Fri Handel ApS', form: 'ApS', protected: false, owner: null },
];

export const DIRECTORY_ENTRIES: DirectoryEntry[] = [
  { number: '+4522334455', name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense', listed: true },
  { number: '+4566778899', name: 'Hemmelig Person', address: 'Skjultvej 1, 8000 Aarhus C', listed: false },
  { number: '+4533445566', name: 'Karl Jensen', address: 'Vestergade 1, 8000 Aarhus C', listed: true },
];

/** One job row per §17 case, and what it must give (company-and-phone job, people not checked). */
export interface RegisterRow {
  row: JobRowInput;
  status: 'allowed' | 'blocked' | 'manual';
  reasons: string[];
  level: number | null;
  company?: { status: string; company_form: string | null };
  phone?: 'found' | 'unlisted' | 'not_found';
}

export const REGISTER_ROWS: RegisterRow[] = [
  { row: { id: 'protected', cvr: '10150817' }, status: 'blocked', reasons: ['company_protected'], level: null, company: { status: 'blocked', company_form: 'ApS' } },
  { row: { id: 'owner-listed', cvr: '2531 3763' }, status: 'blocked', reasons: ['name_and_unit'], level: 5, company: { status: 'blocked', company_form: 'ENK' } },
  { row: { id: 'owner-free', cvr: '31662834' }, status: 'allowed', reasons: [], level: 0, company: { status: 'allowed', company_form: 'ENK' } },
  { row: { id: 'by-name', company_name: 'fri handel aps' }, status: 'allowed', reasons: [], level: null, company: { status: 'allowed', company_form: 'ApS' } },
  { row: { id: 'unknown', cvr: '12345674' }, status: 'manual', reasons: [], level: null, company: { status: 'manual', company_form: null } },
  { row: { id: 'found-listed', phone: '22 33 44 55' }, status: 'blocked', reasons: ['name_and_unit'], level: 5, phone: 'found' },
  { row: { id: 'found-free', phone: '+45 33 44 55 66' }, status: 'allowed', reasons: [], level: 0, phone: 'found' },
  { row: { id: 'unlisted', phone: '66778899' }, status: 'manual', reasons: ['phone_unlisted'], level: null, phone: 'unlisted' },
  { row: { id: 'not-found', phone: '99 88 77 66' }, status: 'manual', reasons: ['phone_not_found'], level: null, phone: 'not_found' },
];

/** Creates, fills, seals and activates a register version (companies or phones); returns it. */
export async function seedRegisterVersion(store: RegisterStore, kind: RegisterKind, records: readonly object[]): Promise<RegisterVersion> {
  const id = randomUUID();
  await store.createRegisterVersion({ id, kind, published_on: '2026-11-01', created_at: new Date().toISOString(), activated_at: null, record_count: 0 });
  await store.appendRegisterRecords(id, records);
  await store.sealRegisterVersion(id);
  return store.activateRegisterVersion(id, new Date().toISOString());
}
