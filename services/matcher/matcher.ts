import { AddressRegisterUnavailableError } from '../registers/addresses/active-register.ts';
import type { ActiveRegister } from '../registers/companies/active-register.ts';
import type { CompanyIndex, DirectoryEntry, ListIndex, PhoneIndex } from '../domain/index.ts';
import type { ActiveListIndex } from '../registers/lists/active-index.ts';
import type { PhoneDirectory } from '../registers/phones/directory-port.ts';
import type { PrivateListIndexes } from '../registers/lists/private-indexes.ts';
import type { Logger } from '../platform/logger.ts';
import { isPermanent } from '../platform/errors.ts';
import type { PipelineEvent, PipelineEvents, ResultsChunkEvent, RowsChunkEvent } from '../pipeline/events.ts';
import { decodeAt, PoisonMessageError } from '../pipeline/poison.ts';
import {
  chunkPhoneNumbers, matchChunk, NO_CHUNK_REGISTERS, unmatchableReason, type ChunkRegisters, type PrivateList, type UnmatchableReason,
} from './match-chunk.ts';

/**
 * The matcher's work on one batch of checks.rows messages (docs/architecture.md "Flow"): decode each
 * RowsChunk, check its rows against the index of the list version its job pinned (built from the
 * platform's list store by `activeIndex.forVersion`, never from a local file; the cache keeps the
 * previous version while jobs pinned to it drain), and publish one ResultsChunk per chunk. The
 * process wiring commits the batch's offsets only after `handleBatch` resolved, so a matcher
 * killed at any moment leaves its chunks to be matched again by another one (at least once;
 * the projection absorbs duplicates on (job_id, row)).
 *
 * Stateless: a chunk carries everything needed (RowsChunk v6: the pinned list, address register,
 * company register and directory versions), so any matcher can take any chunk.
 * Company and phone checks (v5) read the register versions the job pinned, built from the same
 * store, and the phone provider's API when the job pinned no directory version.
 * A chunk that can never be matched (its pinned version is gone, or a live chunk names none)
 * fails its job with a JobStateChanged instead of blocking the partition; a transient failure
 * (the store does not answer) throws, and the batch is retried.
 */
export interface MatcherCore {
  /** Throws UnreadableEventError (pipeline/poison.ts) for a value that can never be decoded. */
  handleBatch(values: Buffer[]): Promise<void>;
  /** Fails a job one of whose chunks cannot be read or its results not stored, with `error`; once per job and process. */
  failJob(jobId: string, error: string): Promise<void>;
}

/**
 * The registers company and phone checks in jobs read (services/registers/companies/registers.ts, built
 * from the platform's RegisterStore like the list index): pinned versions by id, and the
 * provider's directory for jobs that pinned none (PHONE_DIRECTORY_URL).
 */
export interface MatcherRegisters {
  companies: Pick<ActiveRegister<CompanyIndex>, 'forVersion'>;
  phones: Pick<ActiveRegister<PhoneIndex>, 'forVersion'>;
  directory?: PhoneDirectory;
}

export interface MatcherCoreDeps {
  events: Pick<PipelineEvents, 'publish' | 'decode'>;
  activeIndex: Pick<ActiveListIndex, 'forVersion'>;
  /** Absent: a live chunk with company or phone checks fails its job (the register is unavailable). */
  registers?: MatcherRegisters;
  /** Organisations' private list indexes (chunks with a private_list_version_id, docs/decisions.md §16). */
  privateLists?: Pick<PrivateListIndexes, 'forVersion' | 'versionRef'>;
  logger: Logger;
  now?: () => Date;
  /**
   * Where results are stored instead of published on checks.results: the embedded deployment's
   * matcher stores its own (docs/architecture.md "Matcher"). A chunk whose results can never be
   * stored is named by its place in `chunks` (PoisonMessageError); absent: results are published.
   */
  results?: { store(chunks: ResultsChunkEvent[]): Promise<void> };
}

export function createMatcherCore(deps: MatcherCoreDeps): MatcherCore {
  const logger = deps.logger.child({ module: 'matcher' });
  const now = deps.now ?? (() => new Date());
  /** Jobs this process already failed, so a job of 500 chunks is reported once, not 500 times. */
  const failed = new Set<string>();

  /**
   * The index of exactly the pair the job pinned: its list version and its address register
   * version (null: text only), so a row gets the answer the synchronous check gave when the job
   * was queued (docs/addresses.md "One check, every channel").
   */
  async function indexFor(chunk: RowsChunkEvent): Promise<ListIndex | null> {
    if (chunk.mode === 'test') return null;
    return deps.activeIndex.forVersion(chunk.list_version_id as string, chunk.address_register_version_id);
  }

  function failure(chunk: Pick<RowsChunkEvent, 'job_id' | 'org_id' | 'chunk' | 'list_version_id'>, error: string): PipelineEvent[] {
    if (failed.has(chunk.job_id)) return [];
    failed.add(chunk.job_id);
    if (failed.size > 10_000) failed.clear();
    logger.warn({ job_id: chunk.job_id, chunk: chunk.chunk, list_version_id: chunk.list_version_id, error }, 'matcher.job_failed');
    return [{
      type: 'JobStateChanged',
      value: {
        // org_id is not needed to fail a job (the projection finds it by id); unknown when the
        // chunk could not be read.
        job_id: chunk.job_id, org_id: chunk.org_id ?? '', status: 'failed', error, changed_at: now().toISOString(),
        processed_count: 0, finished_at: null,
      },
    }];
  }

  /**
   * A pinned version that is gone (or never activated), or a directory that cannot answer, can
   * never be read: the job fails. Anything transient is thrown, and the batch is redelivered.
   */
  const isGone = isPermanent;

  async function registersFor(chunk: RowsChunkEvent): Promise<ChunkRegisters | UnmatchableReason> {
    if (chunk.mode === 'test' || (!chunk.check_companies && !chunk.check_phones)) return NO_CHUNK_REGISTERS;
    const registers = deps.registers;
    let companies: ChunkRegisters['companies'] = null;
    if (chunk.check_companies) {
      if (!registers) return 'company_register_unavailable';
      try {
        const loaded = await registers.companies.forVersion(chunk.company_register_version_id as string);
        companies = { index: loaded.index, syncedAt: loaded.version.created_at };
      } catch (error) {
        if (isGone(error)) return 'company_register_unavailable';
        throw error;
      }
    }
    let phones: ChunkRegisters['phones'] = null;
    if (chunk.check_phones) {
      const numbers = chunkPhoneNumbers(chunk);
      try {
        if (chunk.phone_directory_version_id) {
          if (!registers) return 'phone_directory_unavailable';
          const { index } = await registers.phones.forVersion(chunk.phone_directory_version_id);
          const answers = new Map<string, DirectoryEntry | null>();
          for (const number of numbers) answers.set(number, index.get(number) ?? null);
          phones = answers;
        } else {
          // No pinned version: the provider's API answers (it is not versioned).
          if (!registers?.directory) return 'phone_directory_unavailable';
          phones = await registers.directory.lookup(numbers);
        }
      } catch (error) {
        // An unknown answer is never passed off as "not found" (directory-port.ts): the job fails.
        if (isGone(error)) return 'phone_directory_unavailable';
        throw error;
      }
    }
    return { companies, phones };
  }

  async function matchOne(chunk: RowsChunkEvent): Promise<PipelineEvent[]> {
    const unmatchable = unmatchableReason(chunk);
    if (unmatchable) return failure(chunk, unmatchable);
    let index: ListIndex | null = null;
    let privateList: PrivateList | null = null;
    let stage: 'list_version_unavailable' | 'private_list_unavailable' = 'list_version_unavailable';
    try {
      index = await indexFor(chunk);
      stage = 'private_list_unavailable';
      if (chunk.mode === 'live' && chunk.private_list_version_id) {
        // A job that pinned a private list is never checked without it.
        if (!deps.privateLists) return failure(chunk, 'private_list_unavailable');
        privateList = {
          index: await deps.privateLists.forVersion(chunk.private_list_version_id, chunk.address_register_version_id),
          version: await deps.privateLists.versionRef(chunk.private_list_version_id),
        };
      }
    } catch (error) {
      // A pinned register that is gone fails the job like a gone list version: checking its rows
      // with another register (or none) would answer differently from the synchronous check.
      if (error instanceof AddressRegisterUnavailableError) return failure(chunk, 'address_register_unavailable');
      if (isGone(error)) return failure(chunk, stage);
      throw error;
    }
    const registers = await registersFor(chunk);
    if (typeof registers === 'string') return failure(chunk, registers);
    return [{ type: 'ResultsChunk', value: matchChunk(chunk, index, privateList, registers, deps.results !== undefined) }];
  }

  return {
    async failJob(jobId, error) {
      const events = failure({ job_id: jobId, org_id: null, chunk: -1, list_version_id: null }, error);
      if (events.length > 0) await deps.events.publish(events);
    },

    async handleBatch(values) {
      const started = performance.now();
      const out: PipelineEvent[] = [];
      /** The results chunks to store (deps.results), and the place of each one's message in `values`. */
      const results: ResultsChunkEvent[] = [];
      const resultsAt: number[] = [];
      let rows = 0;
      for (const [index, value] of values.entries()) {
        const event = await decodeAt((v) => deps.events.decode(v), value, index);
        if (event.type !== 'RowsChunk') {
          logger.warn({ type: event.type }, 'matcher.unexpected_event');
          continue;
        }
        if (event.value.forgotten) {
          // Its job was deleted (the key is gone): nothing to check, nothing to publish.
          logger.debug({ job_id: event.value.job_id, chunk: event.value.chunk }, 'matcher.chunk_forgotten');
          continue;
        }
        rows += event.value.rows.length;
        for (const matched of await matchOne(event.value)) {
          if (deps.results && matched.type === 'ResultsChunk') {
            results.push(matched.value);
            resultsAt.push(index);
          } else {
            out.push(matched);
          }
        }
      }
      if (results.length > 0) {
        try {
          await deps.results!.store(results);
        } catch (error) {
          // The store named a chunk; the log needs the place of its message in the batch.
          if (error instanceof PoisonMessageError) throw new PoisonMessageError(resultsAt[error.index], error.jobError, error.cause);
          throw error;
        }
      }
      if (out.length > 0) await deps.events.publish(out);
      logger.debug({ chunks: values.length, rows, ms: Math.round(performance.now() - started) }, 'matcher.batch');
    },
  };
}
