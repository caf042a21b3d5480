import { describe, expect, it } from 'vitest';
import { joinedResults, resultsPageBody } from '../../../services/api/results-page-body.ts';
import { CheckJobResultsPageSchema, type CheckJobResultsPage } from '../../../services/api/schemas/check-job.ts';
import { RESULT_SHAPE_COUNT, resultShapeRows } from '../../fixtures/result-shapes.ts';

/**
 * The results page body built from bytes is the body the route built as a string before
 * (docs/architecture.md "Results pages"), byte for byte, on every result shape, and a valid page.
 */
function stringBuiltBody(listVersion: CheckJobResultsPage['list_version'], results: readonly string[], nextCursor: string | null): string {
  // The route's body before the bytes: the stored JSON texts joined into a string template.
  return `{"list_version":${JSON.stringify(listVersion)},"results":[${results.join(',')}],"next_cursor":${JSON.stringify(nextCursor)}}`;
}

const LIST_VERSION: CheckJobResultsPage['list_version'] = { id: '00000000-0000-4000-8000-000000000001', source: 'cpr', published_on: '2026-01-01', activated_at: '2026-01-02T00:00:00.000Z' };

describe('results page body', () => {
  const results = resultShapeRows(3 * RESULT_SHAPE_COUNT).map((r) => JSON.stringify(r.result));

  it('equals the string-built body byte for byte: every shape, an empty page, a cursor or none', () => {
    for (const page of [results, results.slice(0, 1), []]) {
      for (const cursor of [null, 'c2lnbmVkLmN1cnNvcg.x_y-z']) {
        const body = resultsPageBody(LIST_VERSION, joinedResults(page), cursor);
        const joined = Buffer.concat(body.pieces);
        expect(joined.length).toBe(body.length);
        expect(joined.equals(Buffer.from(stringBuiltBody(LIST_VERSION, page, cursor), 'utf8'))).toBe(true);
      }
    }
  });

  it('is a page the response schema accepts, holding the results as stored', () => {
    const body = JSON.parse(Buffer.concat(resultsPageBody(LIST_VERSION, joinedResults(results), null).pieces).toString('utf8')) as unknown;
    const parsed = CheckJobResultsPageSchema.parse(body);
    expect(parsed.results.map((r) => JSON.stringify(r))).toHaveLength(results.length);
    expect((body as { results: unknown[] }).results).toEqual(results.map((r) => JSON.parse(r)));
  });
});
