import type { z } from 'zod';

/**
 * The JSON text of a synchronous check's answer whose operation is `writtenAsChecked`
 * (sync-check.ts; POST /v2/checks). The answer is written as the check made it, not through its
 * zod schema first: parsing 1,000 results with the schema copied every object and made
 * JSON.stringify of the copy twice as slow, 3-4 ms of a 13-18 ms request (docs/architecture.md
 * "Synchronous checks"). The schema is checked by the tests instead, with `checkedAnswerJson`.
 */
export type AnswerJson = (schema: z.ZodType, answer: unknown) => string;

/** Every request: the answer's JSON as it is. */
export const answerJson: AnswerJson = (_schema, answer) => JSON.stringify(answer);

/**
 * Tests (buildApp's `checkResponses`): the same bytes as `answerJson`, after checking that the
 * answer passes its schema and that the schema-parsed answer would have been written byte for byte
 * the same (no key in another order, none dropped). Throws otherwise: the request is a 500.
 */
export const checkedAnswerJson: AnswerJson = (schema, answer) => {
  const json = JSON.stringify(answer);
  const parsed = JSON.stringify(schema.parse(answer));
  if (parsed !== json) throw new Error('the answer differs from its schema-parsed form');
  return json;
};
