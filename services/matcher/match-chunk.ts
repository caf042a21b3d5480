import { applyPrivateList, checkPerson, testModeCheck, TEST_LIST_VERSION, type ListIndex } from '../domain/index.ts';
import type { CheckOptions } from '../domain/types.ts';
import { fromAvroPerson, type ResultsChunkEvent, type RowResult, type RowsChunkEvent } from '../pipeline/events.ts';

/**
 * One chunk of input rows → its results: pure, no I/O. A test-mode chunk gets the fixed test
 * answers (DECISIONS §3) and names the fixed test list version; a live chunk is checked against
 * the index of the version the job pinned, and, when the job pinned a private list version of its
 * organisation (`privateIndex`), against that too (DECISIONS §16: on it → blocked). Every row gives
 * exactly one result, in the chunk's order.
 */
export function matchChunk(chunk: RowsChunkEvent, index: ListIndex | null, privateIndex: ListIndex | null = null): ResultsChunkEvent {
  const options: CheckOptions = { policy: chunk.policy, stopLevel: chunk.stop_level, locale: chunk.locale };
  const test = chunk.mode === 'test';
  if (!test && (index === null || chunk.list_version_id === null)) {
    throw new TypeError('a live chunk needs the index of its pinned list version');
  }
  const results: RowResult[] = new Array(chunk.rows.length);
  for (let i = 0; i < chunk.rows.length; i++) {
    const input = chunk.rows[i];
    const person = fromAvroPerson(input.person);
    let result = test ? testModeCheck(person, options) : checkPerson(index as ListIndex, person, options);
    if (!test && privateIndex) result = applyPrivateList(result, checkPerson(privateIndex, person, options));
    results[i] = { row: input.row, cells: input.cells, result };
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
export type UnmatchableReason = 'list_version_missing' | 'list_version_unavailable';

/** A live chunk must name the version its job pinned (v1 chunks and broken producers do not). */
export function unmatchableReason(chunk: RowsChunkEvent): UnmatchableReason | null {
  if (chunk.mode === 'live' && !chunk.list_version_id) return 'list_version_missing';
  return null;
}
