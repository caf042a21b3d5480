import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../platform/logger.ts';
import type { AccountStore, Organisation } from '../../platform/store/accounts-port.ts';
import type { Connector, ConnectorStatus } from '../../platform/store/connectors-port.ts';
import type { LookupAll } from '../../platform/outbound-http/index.ts';
import { ListNotReadyError } from '../jobs/errors.ts';
import { readPeopleFromJson, readPeopleFromNdjson } from '../people/index.ts';
import { InboundRefusal, type FileJobs } from '../inbound/file-jobs.ts';
import type { SecretBox } from '../inbound/secrets.ts';
import { PullError, pullToFile } from './https-get.ts';
import { slotJobId } from './schedule.ts';
import { MonitorFeedRefusal } from './monitor-feed.ts';
import { createReadStream } from 'node:fs';

/**
 * One scheduled pull of a connector (docs/decisions.md §16, docs/connectors.md): fetch the URL (callback
 * address rules, sealed auth header opened only for the request), then make the slot's job
 * through the same ingest entry points as SFTP and email (csv/xlsx/xls through the file readers,
 * JSON/NDJSON through the people readers), with `source: connector`. The outcome becomes the
 * connector's status: every failure is visible there (`last_error`), none is silent, and the next
 * slot simply tries again.
 */
export interface PullDeps {
  accounts: Pick<AccountStore, 'getOrganisation'>;
  fileJobs: FileJobs;
  secrets: SecretBox;
  /** Local directory for answers in transit (personal data, mode 0700; emptied at start). */
  workDir: string;
  allowHosts: readonly string[];
  timeoutMs: number;
  maxBytes: number;
  ca?: string;
  lookup?: LookupAll;
  logger: Logger;
  now: () => Date;
  /**
   * Replaces a monitor's contacts from a pulled answer (monitor targets; monitor-feed.ts, throws
   * MonitorFeedRefusal for what can never succeed). Absent: such connectors fail visibly with
   * `monitor_unavailable`.
   */
  replaceMonitorContacts?: (input: MonitorFeed) => Promise<void>;
}

/** What a monitor-target pull hands to the monitors (their replaceMonitorContacts). */
export interface MonitorFeed {
  connector: Connector;
  org: Organisation;
  source:
    | { kind: 'people'; people: AsyncIterable<import('../../domain/types.ts').PersonInput[]> }
    | { kind: 'file'; path: string; filename: string | null };
}

type Answer = { kind: 'json' | 'ndjson' } | { kind: 'file' };

/** JSON when the server says so or the body starts with `{` (a check-job body: `{"people": [...]}`), NDJSON when it says so; else a file, sniffed by the file readers. */
async function answerKind(path: string, contentType: string): Promise<Answer> {
  if (contentType === 'application/x-ndjson' || contentType === 'application/ndjson') return { kind: 'ndjson' };
  if (contentType === 'application/json' || contentType.endsWith('+json')) return { kind: 'json' };
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    const text = buffer.subarray(0, bytesRead).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
    return text.startsWith('{') ? { kind: 'json' } : { kind: 'file' };
  } finally {
    await handle.close();
  }
}

/** The last path segment of the URL, as the job's `filename` (never the query: it may hold a token). */
export function filenameOf(url: string): string | null {
  try {
    const segment = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return segment === '' ? null : segment.slice(0, 200);
  } catch {
    return null;
  }
}

/** Jobs one slot may start when each is cut off by a killed process; then the slot fails visibly. */
const MAX_SLOT_ATTEMPTS = 3;

/**
 * The slot's job if a pull before made it (killed after making it and before recording it: the
 * job is there), else the id to make it under. A slot's job whose intake is still open was cut
 * off by a process killed while publishing its rows (one connector process per deployment, and a
 * slot is pulled by one pull at a time: no one else publishes it): it is ended (purged, no
 * results, no callback) and the slot is made again under the next attempt's id, so the slot ends
 * with one job that completes, not a half-published one.
 */
async function slotJob(fileJobs: FileJobs, connectorId: string, slot: number): Promise<{ kind: 'made' | 'make'; id: string } | { kind: 'exhausted' }> {
  for (let attempt = 0; attempt < MAX_SLOT_ATTEMPTS; attempt++) {
    const id = slotJobId(connectorId, slot, attempt);
    const job = await fileJobs.get(id);
    if (!job) return { kind: 'make', id };
    if (job.status === 'deleted' || (await fileJobs.endInterrupted(id))) continue;
    return { kind: 'made', id };
  }
  return { kind: 'exhausted' };
}

export async function pullSlot(deps: PullDeps, connector: Connector, slot: number, previous: ConnectorStatus | null): Promise<ConnectorStatus> {
  const at = () => deps.now().toISOString();
  const ok = (jobId: string | null): ConnectorStatus => ({
    connector_id: connector.id, last_slot: slot, last_run_at: at(), last_ok_at: at(), last_job_id: jobId,
    last_error: previous?.last_error ?? null, last_error_at: previous?.last_error_at ?? null, failures: 0,
  });
  const failed = (code: string): ConnectorStatus => ({
    connector_id: connector.id, last_slot: slot, last_run_at: at(), last_ok_at: previous?.last_ok_at ?? null,
    last_job_id: previous?.last_job_id ?? null, last_error: code, last_error_at: at(), failures: (previous?.failures ?? 0) + 1,
  });

  let jobId = slotJobId(connector.id, slot);
  if (connector.target.kind === 'job') {
    const made = await slotJob(deps.fileJobs, connector.id, slot);
    if (made.kind === 'made') return ok(made.id);
    if (made.kind === 'exhausted') return failed('interrupted');
    jobId = made.id;
  } else if (!deps.replaceMonitorContacts) {
    return failed('monitor_unavailable');
  }
  const org = await deps.accounts.getOrganisation(connector.org_id);
  if (!org || org.suspended) return failed('organisation_unavailable');

  const headers: Record<string, string> = {};
  if (connector.auth_header_name && connector.auth_header_sealed) {
    headers[connector.auth_header_name] = deps.secrets.open(connector.auth_header_sealed, connector.id);
  }
  const dest = join(deps.workDir, `${jobId}.answer`);
  try {
    let pulled;
    try {
      pulled = await pullToFile(connector.url, dest, {
        headers, allowHosts: deps.allowHosts, timeoutMs: deps.timeoutMs, maxBytes: deps.maxBytes,
        ...(deps.ca ? { ca: deps.ca } : {}), ...(deps.lookup ? { lookup: deps.lookup } : {}),
      });
    } catch (error) {
      if (error instanceof PullError) return failed(error.code);
      throw error;
    }
    const kind = await answerKind(dest, pulled.contentType);
    const filename = filenameOf(connector.url);
    const people = kind.kind === 'file' ? null
      : kind.kind === 'json' ? readPeopleFromJson(createReadStream(dest)) : readPeopleFromNdjson(createReadStream(dest));
    try {
      if (connector.target.kind === 'monitor') {
        const source: MonitorFeed['source'] = people ? { kind: 'people', people } : { kind: 'file', path: dest, filename };
        await (deps.replaceMonitorContacts as NonNullable<PullDeps['replaceMonitorContacts']>)({ connector, org, source });
        return ok(null);
      }
      const common = { id: jobId, source: 'connector' as const, org, options: connector.options, locale: connector.locale };
      const job = people
        ? await deps.fileJobs.createFromPeople({ ...common, filename, people })
        : await deps.fileJobs.create({ ...common, filename: filename ?? 'connector', path: dest, column_mapping: connector.column_mapping });
      return ok(job.id);
    } catch (error) {
      if (error instanceof InboundRefusal) return failed(`refused:${error.code}`);
      if (error instanceof MonitorFeedRefusal) return failed(error.code);
      if (error instanceof ListNotReadyError) return failed('list_not_ready');
      // Anything else (a store that does not answer) is left to the caller: the slot is tried again.
      throw error;
    }
  } finally {
    await rm(dest, { force: true });
  }
}
