import type { z } from 'zod';

/**
 * What is done with a synchronous check's answer that the check wrote itself (sync-check.ts
 * `write`; POST /v2/checks, people-answer.ts), before it is sent. The answer is written as the check
 * made it, not through its zod schema first: parsing 1,000 results with the schema copied every
 * object and made JSON.stringify of the copy twice as slow, 3-4 ms of a 13-18 ms request
 * (docs/architecture.md "Synchronous checks"). The schema is checked by the tests instead, with
 * `checkedAnswer`.
 */
export type AnswerCheck = (schema: z.ZodType, bytes: Buffer) => void;

/** Every request: nothing, the bytes go out as written. */
export const answerAsWritten: AnswerCheck = () => {};

/**
 * Tests (buildApp's `checkResponses`): the answer must pass its schema, and the schema-parsed
 * answer must be written byte for byte the same (no key in another order, none dropped). Throws
 * otherwise: the request is a 500.
 */
export const checkedAnswer: AnswerCheck = (schema, bytes) => {
  const json = bytes.toString('utf8');
  const parsed = JSON.stringify(schema.parse(JSON.parse(json)));
  if (parsed !== json) throw new Error('the answer differs from its schema-parsed form');
};
