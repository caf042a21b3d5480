/**
 * Writing a monitor's contacts (docs/monitors.md): create a monitor, replace its contacts, delete
 * it. The API, SFTP folders and connectors call these; the people come through services/ingest's
 * readers (JSON/NDJSON people readers, readPeopleFromFile for csv/xlsx/xls).
 *
 * Bad input changes nothing: the new generation's blocks are written first and the record moves
 * to it only when every person was read; a reader that throws leaves the old contacts (and, on
 * create, no monitor). Blocks of an abandoned generation are removed before the error passes on.
 */
import { randomUUID } from 'node:crypto';
import { MAX_ROWS_PER_JOB } from '../../domain/check-job.ts';
import type { Locale, MatchPolicy, PersonInput } from '../../domain/types.ts';
import { readPeopleFromFile, type FilePeopleOptions } from '../index.ts';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import { CONTACT_BLOCK_SIZE, type ContactBlock, type MonitorRecord, type MonitorStore } from '../../platform/store/monitors-port.ts';
import { blockPlace, contactKey, newDataKey, sealContacts } from './contact-seal.ts';
import { PermanentError } from '../../platform/errors.ts';

/** Where a monitor's new contact set comes from. */
export type ContactSource =
  /** JSON/NDJSON already read by readPeopleFromJson / readPeopleFromNdjson (they throw on a bad person). */
  | { kind: 'people'; people: AsyncIterable<PersonInput[]> }
  /**
   * A csv/xlsx/xls file on local disk (format sniffed); mapping: the caller's, else `savedMapping`'s
   * choice for the header row, else guessed from headers. `refuseWarnings`: see readPeopleFromFile.
   */
  | { kind: 'file'; path: string } & FilePeopleOptions;

export interface MonitorContactsDeps {
  monitors: MonitorStore;
  clock?: () => Date;
}

/**
 * Days the contacts are kept after their last replacement: the organisation's retention (its
 * default) and at most 90, the same promise as for jobs (docs/monitors.md "Retention").
 */
export const DEFAULT_MONITOR_RETENTION_DAYS = 30;
export const MAX_MONITOR_RETENTION_DAYS = 90;
/** At most this many contacts per monitor (the job limit, docs/contract.md "Limits"). */
export const MAX_MONITOR_CONTACTS = MAX_ROWS_PER_JOB;
const DAY_MS = 24 * 60 * 60 * 1000;

export class MonitorNotFoundError extends PermanentError {
  constructor() {
    super('no such monitor');
    this.name = 'MonitorNotFoundError';
  }
}

/** More contacts than a monitor may hold: refused, nothing changed. */
export class TooManyContactsError extends PermanentError {
  /** The limit that refused them: what every refusal text tells the customer. */
  readonly limit: number;
  constructor(limit: number) {
    super(`a monitor holds at most ${limit} contacts`);
    this.name = 'TooManyContactsError';
    this.limit = limit;
  }
}

/** No contacts at all: a monitor of nobody is refused (DELETE it instead). */
export class NoContactsError extends PermanentError {
  constructor() {
    super('a monitor needs at least one contact');
    this.name = 'NoContactsError';
  }
}

export interface MonitorSpec {
  org: Pick<Organisation, 'id' | 'stop_level'> & Partial<Pick<Organisation, 'retention_days'>>;
  mode: 'live' | 'test';
  keyHash: string;
  callback_url?: string | null;
  external_ref?: string | null;
  policy?: MatchPolicy;
  stop_level?: number;
  use_private_list?: boolean;
  retention_days?: number;
  locale: Locale;
}

async function* peopleOf(source: ContactSource): AsyncGenerator<PersonInput[]> {
  if (source.kind === 'people') {
    yield* source.people;
    return;
  }
  const file = await readPeopleFromFile(source.path, source);
  yield* file.people();
}

/**
 * Reads the source into blocks of one generation. A person met twice (same key) is kept twice,
 * the second with a suffixed key, so every input row is checked and reported (nothing dropped).
 */
async function writeGeneration(store: MonitorStore, monitor: { id: string; data_key: string }, generation: number, source: ContactSource): Promise<number> {
  const seen = new Set<string>();
  let block = 0;
  let count = 0;
  let people: PersonInput[] = [];
  let keys: string[] = [];
  const flush = async () => {
    if (people.length === 0) return;
    const sealed: ContactBlock = { block, keys, sealed: sealContacts(monitor.data_key, blockPlace(monitor.id, generation, block), people) };
    await store.putContactBlocks(monitor.id, generation, [sealed]);
    block += 1;
    people = [];
    keys = [];
  };
  try {
    for await (const batch of peopleOf(source)) {
      for (const person of batch) {
        count += 1;
        if (count > MAX_MONITOR_CONTACTS) throw new TooManyContactsError(MAX_MONITOR_CONTACTS);
        let key = contactKey(monitor.data_key, person);
        for (let n = 2; seen.has(key); n++) key = `${contactKey(monitor.data_key, person)}~${n}`;
        seen.add(key);
        people.push(person);
        keys.push(key);
        if (people.length === CONTACT_BLOCK_SIZE) await flush();
      }
    }
    await flush();
    if (count === 0) throw new NoContactsError();
    return count;
  } catch (error) {
    await store.dropContactGeneration(monitor.id, generation).catch(() => undefined);
    throw error;
  }
}

/**
 * Creates a monitor from its contacts. `specOf` is asked once every contact was read (a JSON body
 * may name its fields after `people`); when it throws (a refused callback URL), the contacts
 * written go again and nothing is created.
 */
export async function createMonitor(deps: MonitorContactsDeps, specOf: () => Promise<MonitorSpec>, source: ContactSource): Promise<MonitorRecord> {
  const draft = { id: randomUUID(), data_key: newDataKey() };
  const count = await writeGeneration(deps.monitors, draft, 1, source);
  let spec: MonitorSpec;
  try {
    spec = await specOf();
  } catch (error) {
    await deps.monitors.dropContactGeneration(draft.id, 1).catch(() => undefined);
    throw error;
  }
  const now = (deps.clock ?? (() => new Date()))();
  const retentionDays = Math.min(spec.retention_days ?? spec.org.retention_days ?? DEFAULT_MONITOR_RETENTION_DAYS, MAX_MONITOR_RETENTION_DAYS);
  const monitor: MonitorRecord = {
    ...draft,
    org_id: spec.org.id,
    mode: spec.mode,
    external_ref: spec.external_ref ?? null,
    callback_url: spec.callback_url ?? null,
    options: {
      policy: spec.policy ?? 'standard', stop_level: spec.stop_level ?? spec.org.stop_level ?? 1,
      ...(spec.use_private_list === true ? { use_private_list: true } : {}),
    },
    locale: spec.locale,
    key_hash: spec.keyHash,
    generation: 1,
    contact_count: count,
    retention_days: retentionDays,
    delete_after: new Date(now.getTime() + retentionDays * DAY_MS).toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    deleted_at: null,
    checked: null,
    run: null,
  };
  await deps.monitors.createMonitor(monitor);
  return monitor;
}

/**
 * Replaces the whole contact set of one monitor (a new generation). See the module comment for
 * what bad input does. Contacts' earlier verdicts carry over (same person = same contact key);
 * the monitor service re-checks the new set against the active version.
 */
export async function replaceMonitorContacts(
  deps: MonitorContactsDeps,
  input: { organisationId: string; mode: 'live' | 'test'; monitorId: string; source: ContactSource },
): Promise<MonitorRecord> {
  const current = await deps.monitors.getMonitor({ org_id: input.organisationId, mode: input.mode }, input.monitorId);
  if (!current || !current.data_key) throw new MonitorNotFoundError();
  const generation = current.generation + 1;
  const count = await writeGeneration(deps.monitors, { id: current.id, data_key: current.data_key }, generation, input.source);
  const now = (deps.clock ?? (() => new Date()))();
  const next = await deps.monitors.updateMonitor(current.id, {
    generation, contact_count: count, delete_after: new Date(now.getTime() + current.retention_days * DAY_MS).toISOString(),
  });
  if (!next || next.deleted_at !== null) {
    await deps.monitors.dropContactGeneration(current.id, generation).catch(() => undefined);
    throw new MonitorNotFoundError();
  }
  return next;
}

/**
 * DELETE: contacts, verdicts and the data key go at once, and a check in flight is ended with
 * `endRun` (its job purged like DELETE /v2/check-jobs/{id}: no result kept, no callback).
 */
export async function deleteMonitor(
  deps: MonitorContactsDeps & { endRun: (jobId: string) => Promise<void> },
  scope: { org_id: string; mode: 'live' | 'test' },
  id: string,
): Promise<MonitorRecord> {
  const current = await deps.monitors.getMonitor(scope, id);
  if (!current) throw new MonitorNotFoundError();
  const now = (deps.clock ?? (() => new Date()))();
  const deleted = (await deps.monitors.deleteMonitor(id, now.toISOString())) ?? current;
  if (current.run) await deps.endRun(current.run.job_id);
  return deleted;
}
