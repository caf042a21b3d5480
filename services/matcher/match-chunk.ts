import {
  applyPrivateList, checkJobRow, checkPeople, checkPerson, findCompany, normalisePhone, testRowLookups, TEST_LIST_VERSION, type CompanyIndex,
  type DirectoryEntry, type JobChecks, type ListIndex, type RowLookups,
} from '../domain/index.ts';
import type { CheckOptions, CheckResult, ListVersionRef, PersonInput } from '../domain/types.ts';
import { fromAvroPerson, type ResultsChunkEvent, type RowResult, type RowsChunkEvent } from '../pipeline/events.ts';
import type { ResultLine } from '../platform/store/jobs-port.ts';

/**
 * What a live chunk's company and phone checks read (docs/decisions.md §17 in jobs), fetched by the
 * matcher before matching so that matching stays pure: the pinned company register version, and
 * the phone directory's answers for the chunk's numbers.
 */
export interface ChunkRegisters {
  /** The index of the company register version the job pinned; null when the chunk checks no companies. */
  companies: { index: CompanyIndex; syncedAt: string } | null;
  /** E.164 → the directory's entry, null when not found; null when the chunk checks no phones. */
  phones: ReadonlyMap<string, DirectoryEntry | null> | null;
}

/** An organisation's private list version a job pinned: its index, and the version its matches name. */
export interface PrivateList {
  index: ListIndex;
  version: ListVersionRef;
}

export const NO_CHUNK_REGISTERS: ChunkRegisters = Object.freeze({ companies: null, phones: null });

/** The distinct numbers (E.164) of a chunk's rows that a phone check looks up; empty when it checks no phones. */
export function chunkPhoneNumbers(chunk: RowsChunkEvent): string[] {
  if (!chunk.check_phones) return [];
  const numbers = new Set<string>();
  for (const { person } of chunk.rows) {
    const number = person.phone ? normalisePhone(person.phone) : null;
    if (number !== null) numbers.add(number);
  }
  return [...numbers];
}

function liveLookups(
  chunk: RowsChunkEvent, index: ListIndex, privateList: PrivateList | null, registers: ChunkRegisters, options: CheckOptions,
): RowLookups {
  const { companies, phones } = registers;
  if (chunk.check_companies && companies === null) throw new TypeError('a live chunk with company checks needs its pinned company register');
  if (chunk.check_phones && phones === null) throw new TypeError('a live chunk with phone checks needs the directory answers');
  const check = (person: PersonInput): CheckResult => {
    const result = checkPerson(index, person, options);
    return privateList ? applyPrivateList(result, checkPerson(privateList.index, person, options), privateList.version) : result;
  };
  return {
    checkPerson: check,
    findCompany: (input) => (companies ? findCompany(companies.index, input) : null),
    companySyncedAt: companies?.syncedAt ?? null,
    phoneEntry: (phone) => {
      const number = normalisePhone(phone);
      return number === null ? null : (phones?.get(number) ?? null);
    },
  };
}

/**
 * Rows checked before their results' lines are written (livePeople): a few, so that each result
 * is still in the processor's cache when JSON.stringify reads it (docs/architecture.md "Matcher").
 */
const LINE_SLICE = 128;

/** Each person checked against the pinned list and, when pinned, the private list (applyPrivateList), in order. */
function livePeople(people: PersonInput[], index: ListIndex, privateList: PrivateList | null, options: CheckOptions): CheckResult[] {
  const results = checkPeople(index, people, options);
  if (privateList) {
    const onPrivate = checkPeople(privateList.index, people, options);
    for (let i = 0; i < results.length; i++) results[i] = applyPrivateList(results[i], onPrivate[i], privateList.version);
  }
  return results;
}

/** livePeople LINE_SLICE rows at a time, each final result's stored line pushed to `lines` as soon as its slice is checked. */
function livePeopleWithLines(people: PersonInput[], index: ListIndex, privateList: PrivateList | null, options: CheckOptions, lines: ResultLine[]): CheckResult[] {
  const results: CheckResult[] = [];
  for (let from = 0; from < people.length; from += LINE_SLICE) {
    for (const result of livePeople(people.slice(from, from + LINE_SLICE), index, privateList, options)) {
      results.push(result);
      lines.push({ text: JSON.stringify(result), of: result });
    }
  }
  return results;
}

/**
 * One chunk of input rows → its results: pure, no I/O. A test-mode chunk gets the fixed test
 * answers (docs/decisions.md §3) and names the fixed test list version; a live chunk is checked against
 * the index of the version the job pinned, and, when the job pinned a private list version of its
 * organisation (`privateIndex`), against that too (docs/decisions.md §16: on it → blocked; this holds for
 * every person a row checks: its own, a sole proprietor, the holder of a number). Its company and
 * phone checks read `registers`. Every row gives exactly one result (checkJobRow), in the chunk's order.
 * `withLines`: the matcher stores its results itself (the embedded deployment), so a person-only
 * live chunk's rows carry their stored lines, made right after their check (jobs-port.ts ResultLine).
 */
export function matchChunk(
  chunk: RowsChunkEvent, index: ListIndex | null, privateList: PrivateList | null = null, registers: ChunkRegisters = NO_CHUNK_REGISTERS,
  withLines = false,
): ResultsChunkEvent {
  const options: CheckOptions = { policy: chunk.policy, stopLevel: chunk.stop_level, locale: chunk.locale };
  const test = chunk.mode === 'test';
  if (!test && (index === null || chunk.list_version_id === null)) {
    throw new TypeError('a live chunk needs the index of its pinned list version');
  }
  const checks: JobChecks = { people: chunk.check_people, companies: chunk.check_companies, phones: chunk.check_phones };
  const personOnly = checks.people && !checks.companies && !checks.phones;
  const lookups = test ? testRowLookups(options) : liveLookups(chunk, index as ListIndex, privateList, registers, options);
  const rows = chunk.rows.map((input) => fromAvroPerson(input.person));
  // The person-only live job (most of them) checks the chunk as one batch and skips the combining
  // of checkJobRow: same answers, less work (docs/matching.md "Speed of the check path": checkPeople).
  const lines: ResultLine[] | null = withLines && personOnly && !test ? [] : null;
  const checked = personOnly && !test
    ? (lines ? livePeopleWithLines(rows, index as ListIndex, privateList, options, lines) : livePeople(rows, index as ListIndex, privateList, options))
    : rows.map((row) => (personOnly ? lookups.checkPerson(row) : checkJobRow(row, checks, lookups, options)));
  const results: RowResult[] = new Array(chunk.rows.length);
  for (let i = 0; i < chunk.rows.length; i++) {
    const input = chunk.rows[i];
    results[i] = lines ? { row: input.row, cells: input.cells, result: checked[i], line: lines[i] } : { row: input.row, cells: input.cells, result: checked[i] };
  }
  return {
    job_id: chunk.job_id,
    list_version_id: test ? TEST_LIST_VERSION.id : (chunk.list_version_id as string),
    chunk: chunk.chunk,
    results,
    // Sealed with the key of the rows they come from: a matcher never makes a key of its own, so
    // it cannot give a deleted job a new, undeleted one.
    data_key_id: chunk.data_key_id ?? null,
  };
}

/** Why a chunk cannot be matched at all; the job fails with this code (no personal data). */
export type UnmatchableReason =
  | 'list_version_missing'
  | 'list_version_unavailable'
  | 'address_register_unavailable'
  | 'company_register_missing'
  | 'company_register_unavailable'
  | 'phone_directory_unavailable';

/**
 * A live chunk must name the version its job pinned (v1 chunks and broken producers do not), and
 * one with company checks the company register version too.
 */
export function unmatchableReason(chunk: RowsChunkEvent): UnmatchableReason | null {
  if (chunk.mode === 'live' && !chunk.list_version_id) return 'list_version_missing';
  if (chunk.mode === 'live' && chunk.check_companies && !chunk.company_register_version_id) return 'company_register_missing';
  return null;
}
