/**
 * Ingest: the one home of "turn a source into a job" (docs/architecture.md "Job intake"). The API,
 * SFTP drop folders, emailed spreadsheets, connectors and monitors all call these entry points,
 * so every job has the same record, the same events and the same guarantees (bad input changes
 * nothing; a killed process never leaves a job half-created; no personal data in errors or logs).
 *
 * - people (JSON, NDJSON, a monitor's stored list): `createJobFromPeople`, or `intake.spool` +
 *   `intake.commit` when the caller must claim an idempotency key in between (the API).
 * - files (csv, xlsx, xls): see services/ingest/uploads (createJobFromFile, startDraft,
 *   streamResultFile).
 *
 * Errors: JobInputError (the job's fields; 422 at the edge), ListNotReadyError (503), the people
 * readers' IntakeError (400/422), and for files FileRefusedError / ColumnMappingError (422).
 */
import type { PersonInput } from '../domain/types.ts';
import type { JobRecord } from '../platform/store/jobs-port.ts';
import { createJobIntake, type JobIntake, type JobIntakeDeps, type JobSpec } from './jobs/intake.ts';

export { JobInputError, ListNotReadyError, type JobInputIssue } from './jobs/errors.ts';
export { DEFAULT_SPOOL_DIR, type JobIntake, type JobIntakeDeps, type JobSpec } from './jobs/intake.ts';
export { IntakeError, readPeopleFromJson, readPeopleFromNdjson, type IntakeErrorCode } from './people/index.ts';

export interface PeopleIngest {
  /** The two-phase intake underneath (spool, then commit), for callers with an idempotency claim. */
  intake: JobIntake;
  /**
   * Reads and validates every person (the iterable throws on a bad one: nothing is created), then
   * creates the job `queued`, pins the list version and publishes its rows. The spool file is
   * gone when the promise settles.
   */
  createJobFromPeople(spec: JobSpec & { people: AsyncIterable<PersonInput[]> }): Promise<JobRecord>;
}

export function createPeopleIngest(deps: JobIntakeDeps): PeopleIngest {
  const intake = createJobIntake(deps);
  return { intake, createJobFromPeople: (spec) => intake.createJob(spec) };
}
