import { randomUUID } from 'node:crypto';
import type { ListEntry } from '../../domain/types.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';
import type { ListStore, ListVersion } from '../../platform/store/lists-port.ts';
import { parseCprFile } from './cpr-format.ts';
import { parseListCsv } from './csv-format.ts';
import { ListFileRowsError } from './list-file-errors.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * Imports a list file into the list store as a new version: the file streams through its reader,
 * entries are appended in batches (never the whole file in memory), and the version is sealed when
 * the file was read whole. The new version is NOT activated; that is a separate, deliberate step
 * (`activateListVersion`), so an operator can look at the count first.
 *
 * Malformed lines: the readers skip them and report them at the end. The import then fails unless
 * the caller allowed that many (`maxSkippedLines`, default 0); a failed import leaves an unsealed
 * version behind, which can never be activated.
 */
export interface ImportListDeps {
  listStore: ListStore;
  logger: Logger;
  now?: () => Date;
}

export interface ImportListRequest {
  source: 'cpr' | 'customer';
  format: 'cpr' | 'csv';
  /** Owner of a customer list; must be absent for the national (cpr) list. */
  orgId?: string;
  chunks: AsyncIterable<Uint8Array>;
  /** Publication date (YYYY-MM-DD). Default: the CPR file's own date, else today. */
  publishedOn?: string;
  /** How many malformed lines may be skipped before the import is refused. Default 0. */
  maxSkippedLines?: number;
  batchSize?: number;
}

export interface ImportListResult {
  version: ListVersion;
  skippedLines: number;
}

export class ListImportError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'ListImportError';
  }
}

const DEFAULT_BATCH_SIZE = 10_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function importListVersion(deps: ImportListDeps, request: ImportListRequest): Promise<ImportListResult> {
  const { listStore } = deps;
  const now = deps.now ?? (() => new Date());
  if (request.source === 'customer' && !request.orgId) {
    throw new ListImportError('a customer list needs the organisation it belongs to (orgId)');
  }
  if (request.source === 'cpr' && request.orgId) {
    throw new ListImportError('the national (cpr) list belongs to no organisation; drop orgId');
  }
  if (request.publishedOn !== undefined && !DATE.test(request.publishedOn)) {
    throw new ListImportError(`publishedOn must be a date YYYY-MM-DD, got ${JSON.stringify(request.publishedOn)}`);
  }
  const batchSize = request.batchSize ?? DEFAULT_BATCH_SIZE;
  const maxSkipped = request.maxSkippedLines ?? 0;
  const logger = deps.logger.child({ module: 'lists.import', source: request.source, format: request.format });

  const items = readItems(request.format, request.chunks)[Symbol.asyncIterator]();
  let first = await items.next();
  let fileDate: string | null = null;
  if (!first.done && first.value.type === 'header') {
    fileDate = first.value.published_on;
    first = await items.next();
  }

  const version: ListVersion = {
    id: randomUUID(),
    source: request.source,
    org_id: request.source === 'customer' ? request.orgId! : null,
    published_on: request.publishedOn ?? fileDate ?? now().toISOString().slice(0, 10),
    created_at: now().toISOString(),
    activated_at: null,
    entry_count: 0,
  };
  await listStore.createListVersion(version);
  logger.info({ list_version_id: version.id, published_on: version.published_on }, 'list.import_started');

  let batch: ListEntry[] = [];
  let appended = 0;
  let skippedLines = 0;
  try {
    for (let item = first; !item.done; item = await items.next()) {
      if (item.value.type !== 'entry') continue;
      batch.push(item.value.entry);
      if (batch.length >= batchSize) {
        await listStore.appendListEntries(version.id, batch);
        appended += batch.length;
        batch = [];
      }
    }
  } catch (error) {
    if (!(error instanceof ListFileRowsError)) {
      logger.error({ list_version_id: version.id, appended, ...errorFields(error) }, 'list.import_failed');
      throw error;
    }
    skippedLines = error.count;
    if (skippedLines > maxSkipped) {
      logger.error({ list_version_id: version.id, skipped_lines: skippedLines, lines: error.lines.slice(0, 20) }, 'list.import_refused');
      throw new ListImportError(
        `${error.message}; at most ${maxSkipped} may be skipped, the version ${version.id} was not sealed`,
      );
    }
  }
  if (batch.length > 0) {
    await listStore.appendListEntries(version.id, batch);
    appended += batch.length;
  }
  const sealed = await listStore.sealListVersion(version.id);
  logger.info({ list_version_id: sealed.id, entry_count: sealed.entry_count, skipped_lines: skippedLines }, 'list.import_sealed');
  return { version: sealed, skippedLines };
}

/** Makes a version the one checks run against (for a customer list: its organisation's). */
export async function activateListVersion(
  deps: ImportListDeps,
  versionId: string,
): Promise<ListVersion> {
  const now = deps.now ?? (() => new Date());
  const version = await deps.listStore.activateListVersion(versionId, now().toISOString());
  deps.logger.info({ module: 'lists.activate', list_version_id: version.id, source: version.source }, 'list.activated');
  return version;
}

type ListFileItem = { type: 'header'; published_on: string } | { type: 'entry'; entry: ListEntry };

async function* readItems(format: 'cpr' | 'csv', chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ListFileItem> {
  if (format === 'cpr') {
    yield* parseCprFile(chunks);
    return;
  }
  for await (const entry of parseListCsv(chunks)) yield { type: 'entry', entry };
}
