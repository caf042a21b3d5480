/** Streaming readers of check-job bodies: no HTTP framework here, only bytes in and people out. */
export { IntakeError, type IntakeErrorCode } from './errors.ts';
export type { IntakeLimits } from './limits.ts';
export type { PeopleBatch } from './batches.ts';
export { readPeopleFromJson, type JsonBodySummary, type JsonIntakeOptions } from './people-json.ts';
export { readPeopleFromNdjson, type NdjsonBodySummary } from './people-ndjson.ts';
