import type { CheckResult, ListVersionRef, PersonInput } from '../domain/types.ts';

/**
 * POST /v2/checks's answer written as its UTF-8 bytes, a step of people at a time: each step's
 * results are checked, given to JSON.stringify and encoded into one buffer while they are still in
 * the cache, and no JSON text of the whole answer is made (docs/architecture.md "Synchronous
 * checks": 0.3-0.45 ms of a 1,000-person request's ~3 ms of check, JSON and encoding). The bytes
 * are those of `JSON.stringify({ list_version, results })` (test/unit/api/people-answer.test.ts).
 */

/** People checked and written per step: checkPeople's own batch (docs/matching.md "Speed of the check path"). */
const PEOPLE_PER_STEP = 128;
/**
 * Where answers are written, reused by the next answer (writing is synchronous, so one answer at a
 * time per thread); it grows to the largest answer written and each answer is copied out of it.
 */
let scratch = Buffer.allocUnsafe(1024 * 1024);

/** Writes `text` at `at` and returns where it ends; UTF-8 takes at most 3 bytes per UTF-16 unit. */
function put(text: string, at: number): number {
  const room = text.length * 3;
  if (scratch.length - at < room) {
    const grown = Buffer.allocUnsafe(Math.max(2 * scratch.length, at + room));
    scratch.copy(grown, 0, 0, at);
    scratch = grown;
  }
  return at + scratch.write(text, at, 'utf8');
}

/** The answer's bytes: `check` gets the people a step at a time, in order, and answers each in order. */
export function writePeopleAnswer(
  listVersion: ListVersionRef, people: readonly PersonInput[], check: (step: readonly PersonInput[]) => CheckResult[],
): Buffer {
  let at = put(`{"list_version":${JSON.stringify(listVersion)},"results":[`, 0);
  for (let from = 0; from < people.length; from += PEOPLE_PER_STEP) {
    // "[r1,r2,…]": its elements, joined to the steps before by a comma as one array's would be.
    const results = JSON.stringify(check(people.slice(from, from + PEOPLE_PER_STEP)));
    if (from > 0) at = put(',', at);
    at = put(results.slice(1, -1), at);
  }
  at = put(']}', at);
  const answer = Buffer.allocUnsafe(at);
  scratch.copy(answer, 0, 0, at);
  return answer;
}
