import { createHash } from 'node:crypto';
import type { ListVersionRef } from '../../domain/types.ts';
import { toListVersionRef } from '../../registers/lists/active-index.ts';
import type { Logger } from '../../platform/logger.ts';
import type { JobStore } from '../../platform/store/jobs-port.ts';
import type { SavedMappingStore } from '../../platform/store/saved-mappings-port.ts';
import type { AddressStore } from '../../platform/store/addresses-port.ts';
import type { ListStore } from '../../platform/store/lists-port.ts';
import type { PipelineEvents } from '../../pipeline/events.ts';
import {
  ColumnMappingError, createIngest, FileRefusedError, fileRefusalMessage, IntakeError, JobInputError, ListNotReadyError, resultFileSpec,
  type FileRefusalCode, type Ingest, type IngestDeps,
} from '../index.ts';
import { FILE_REFUSAL_CODES, MappingWarningsError, warningsOfRefusalCode, warningsRefusalCode, warningsRefusalTexts } from '../files/index.ts';
import { endUnfinishedJob } from '../jobs/end-job.ts';
import { InboundRefusal, type FileJobs } from './file-jobs.ts';
import { inboundTexts, type InboundMessageCode } from './messages.ts';
import { savedMappingChoice } from './saved-mapping-choice.ts';

/**
 * FileJobs on the file ingest (services/ingest: createJobFromFile, streamResultFile), the same
 * entry points the API's uploads use: same readers, mapping, record and events. The job id is
 * the claim's: the intake is given it as its id source for that one job.
 *
 * The versions a job pins (list and address register) are read from the stores right before
 * each job (no list index is built: inbound jobs start at once and have no preview to check).
 *
 * Inbound jobs are live jobs without an API key: their `key_hash` (the callback secret) is the
 * SHA-256 of `inbound:<source>`; they have no callback.
 */
export interface IngestFileJobsDeps {
  jobs: JobStore;
  events: Pick<PipelineEvents, 'publish'>;
  lists: ListStore;
  /** The address register versions (the active one is pinned with the list version). */
  addresses: Pick<AddressStore, 'getActiveAddressVersion'>;
  logger: Logger;
  /** The organisations' saved column mappings (docs/inbound.md "Saved column mappings on every channel"); absent: guessed only. */
  savedMappings?: Pick<SavedMappingStore, 'listMappings'>;
  spoolDir: string;
  draftDir: string;
  chunkRows?: number;
}

export function createIngestFileJobs(deps: IngestFileJobsDeps): FileJobs {
  let pinned: ListVersionRef | null = null;
  let pinnedAddresses: string | null = null;
  const base: IngestDeps = {
    jobs: deps.jobs,
    events: deps.events,
    currentListVersion: () => pinned,
    currentAddressRegisterVersion: () => pinnedAddresses,
    privateListVersion: async (orgId) => (await deps.lists.getActiveListVersion('customer', orgId))?.id ?? null,
    // Inbound jobs carry no callback URL.
    checkCallbackUrl: async () => undefined,
    logger: deps.logger,
    spoolDir: deps.spoolDir,
    draftDir: deps.draftDir,
    // Inbound jobs start at once: no draft, so no preview is ever checked.
    checkPreview: () => {
      throw new ListNotReadyError();
    },
    ...(deps.chunkRows ? { chunkRows: deps.chunkRows } : {}),
  };
  const shared: Ingest = createIngest(base);

  /** The ingest for one job: the given id, the active version pinned right now. */
  async function ingestFor(id: string): Promise<Ingest> {
    const active = await deps.lists.getActiveListVersion('cpr', null);
    pinned = active ? toListVersionRef(active) : null;
    // The active address register too (docs/addresses.md "One check, every channel").
    pinnedAddresses = (await deps.addresses.getActiveAddressVersion())?.id ?? null;
    return createIngest({ ...base, newId: () => id });
  }
  const keyHashOf = (source: string) => createHash('sha256').update(`inbound:${source}`).digest('hex');

  return {
    async create(spec) {
      const existing = await deps.jobs.getJobById(spec.id);
      if (existing) return existing;
      const ingest = await ingestFor(spec.id);
      // The channel's own mapping (a folder's or connector's) first; else the organisation's saved
      // mapping for the file's header row, before guessing.
      const savedMapping = await savedMappingChoice(deps.savedMappings, spec.org.id, spec.source, spec.column_mapping);
      try {
        return await ingest.createJobFromFile({
          source: spec.source, org: spec.org, mode: 'live', keyHash: keyHashOf(spec.source),
          filename: spec.filename, path: spec.path, column_mapping: spec.column_mapping, options: spec.options,
          ...(savedMapping ? { savedMapping } : {}),
          locale: spec.locale, start: true,
        });
      } catch (error) {
        throw asRefusal(error);
      }
    },
    async createFromPeople(spec) {
      const existing = await deps.jobs.getJobById(spec.id);
      if (existing) return existing;
      const ingest = await ingestFor(spec.id);
      try {
        return await ingest.createJobFromPeople({
          source: spec.source, org: spec.org, mode: 'live', keyHash: keyHashOf(spec.source),
          filename: spec.filename, options: spec.options, locale: spec.locale, people: spec.people,
        });
      } catch (error) {
        throw asRefusal(error);
      }
    },
    get: (id) => deps.jobs.getJobById(id),
    async endInterrupted(id) {
      const [job, intake] = await Promise.all([deps.jobs.getJobById(id), deps.jobs.getIntake(id)]);
      if (intake?.closed !== false || (job?.status !== 'queued' && job?.status !== 'running')) return false;
      await endUnfinishedJob(deps, id, new Date().toISOString());
      return true;
    },
    resultExtension: (job) => resultFileSpec(job).format,
    writeResult: (job, locale, out) => shared.streamResultFile(job, { locale }, out),
    refusalTexts(code) {
      const warnings = warningsOfRefusalCode(code);
      if (warnings) return warningsRefusalTexts(warnings);
      if ((FILE_REFUSAL_CODES as string[]).includes(code)) {
        return { da: fileRefusalMessage(code as FileRefusalCode, 'da'), en: fileRefusalMessage(code as FileRefusalCode, 'en') };
      }
      return inboundTexts(code in INBOUND_CODES ? (code as InboundMessageCode) : 'job_failed');
    },
  };
}

const INBOUND_CODES: Record<string, true> = {
  column_mapping_required: true, column_mapping_invalid: true, invalid_rows: true, invalid_options: true,
};

/** Refusals for good become InboundRefusal; anything else (no list yet, a store down) stays as it is: transient. */
export function asRefusal(error: unknown): unknown {
  // A JSON/NDJSON body that is not JSON, has no people or a bad person: refused for good.
  if (error instanceof IntakeError) return new InboundRefusal('invalid_rows', inboundTexts('invalid_rows'));
  if (error instanceof FileRefusedError) {
    return new InboundRefusal(error.code, { da: fileRefusalMessage(error.code, 'da'), en: fileRefusalMessage(error.code, 'en') });
  }
  // A mapping that would check nothing usefully: refused with its warnings, so nothing is checked or billed.
  if (error instanceof MappingWarningsError) return new InboundRefusal(warningsRefusalCode(error.warnings), warningsRefusalTexts(error.warnings));
  if (error instanceof ColumnMappingError) return new InboundRefusal('column_mapping_invalid', inboundTexts('column_mapping_invalid'));
  if (error instanceof JobInputError) {
    const code: InboundMessageCode = error.issues.some((i) => i.problem === 'column_mapping_required') ? 'column_mapping_required'
      : error.issues.some((i) => i.path.startsWith('options') || i.path === 'policy') ? 'invalid_options'
      : error.issues.some((i) => i.path.startsWith('column_mapping')) ? 'column_mapping_invalid'
      : 'invalid_rows';
    return new InboundRefusal(code, inboundTexts(code));
  }
  return error;
}
