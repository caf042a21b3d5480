import type { CheckJobResultsPage } from './schemas/check-job.ts';

/**
 * The CheckJobResultsPage body (GET /v2/check-jobs/{id}/results), built from the results as the
 * store keeps them: their stored JSON, already joined with commas by the store (JobStore
 * readResultsBytes), between the envelope's head and tail (docs/architecture.md "Results
 * pages"). Nothing is parsed, validated or stringified per result, and the 5-6 MB of a
 * 10,000-row page are never a JavaScript string (a string body was decoded from the store's
 * bytes on the way in and encoded to UTF-8 again on the way out) nor copied into one buffer:
 * the body is a list of pieces written one after the other.
 *
 * The envelope is typed, so its shape cannot drift from the schema; the tests validate the pages
 * they read against it, and test/unit/api/results-page-body.test.ts holds these bytes equal to
 * the string-built body this replaced, on every result shape.
 */
export function resultsPageBody(
  listVersion: CheckJobResultsPage['list_version'], results: readonly Buffer[], nextCursor: string | null,
): { pieces: Buffer[]; length: number } {
  const envelope: Omit<CheckJobResultsPage, 'results'> = { list_version: listVersion, next_cursor: nextCursor };
  const head = Buffer.from(`{"list_version":${JSON.stringify(envelope.list_version)},"results":[`, 'utf8');
  const tail = Buffer.from(`],"next_cursor":${JSON.stringify(envelope.next_cursor)}}`, 'utf8');
  const pieces = [head, ...results, tail];
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return { pieces, length };
}

/** Results as JSON texts (a filtered page's, each parsed to read its `change`) joined for the body. */
export function joinedResults(results: readonly string[]): Buffer[] {
  return [Buffer.from(results.join(','), 'utf8')];
}
