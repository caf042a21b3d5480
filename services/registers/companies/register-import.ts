import { randomUUID } from 'node:crypto';
import type { Logger } from '../../platform/logger.ts';
import type { RegisterKind, RegisterStore, RegisterVersion } from '../../platform/store/registers-port.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * Imports a register extract (company register or phone directory file) as a new version: records
 * are appended in batches while the file streams (never the whole extract in memory) and the
 * version is sealed once the file was read whole. Not activated here: activating is the separate
 * step that swaps what checks see, in one store write (RegisterStore).
 *
 * Unusable records are skipped and counted; more than `maxSkipped` (default 0) refuses the import
 * and leaves an unsealed version that can never be activated. Errors name line numbers and
 * reasons only, never a record's content (names, addresses, phone numbers).
 */
export interface RegisterImportDeps {
  store: RegisterStore;
  logger: Logger;
  now?: () => Date;
}

export class RegisterImportError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'RegisterImportError';
  }
}

/** A parsed line: a record, or the reason it was skipped. */
export type ParsedLine<T> = { record: T } | { skipped: string; line: number };

export interface RegisterImportOptions {
  kind: RegisterKind;
  /** YYYY-MM-DD of the extract; default today. */
  publishedOn?: string;
  maxSkipped?: number;
  batchSize?: number;
}

export interface RegisterImportResult {
  version: RegisterVersion;
  skipped: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function importRegister<T extends object>(
  deps: RegisterImportDeps, options: RegisterImportOptions, lines: AsyncIterable<ParsedLine<T>>,
): Promise<RegisterImportResult> {
  const now = deps.now ?? (() => new Date());
  if (options.publishedOn !== undefined && !DATE.test(options.publishedOn)) {
    throw new RegisterImportError('publishedOn must be a date YYYY-MM-DD');
  }
  const logger = deps.logger.child({ module: 'registers.import', kind: options.kind });
  const version: RegisterVersion = {
    id: randomUUID(), kind: options.kind, published_on: options.publishedOn ?? now().toISOString().slice(0, 10),
    created_at: now().toISOString(), activated_at: null, record_count: 0,
  };
  await deps.store.createRegisterVersion(version);
  const batchSize = options.batchSize ?? 10_000;
  const maxSkipped = options.maxSkipped ?? 0;
  const skippedLines: Array<{ line: number; reason: string }> = [];
  let batch: T[] = [];
  for await (const parsed of lines) {
    if ('skipped' in parsed) {
      skippedLines.push({ line: parsed.line, reason: parsed.skipped });
      continue;
    }
    batch.push(parsed.record);
    if (batch.length >= batchSize) {
      await deps.store.appendRegisterRecords(version.id, batch);
      batch = [];
    }
  }
  if (skippedLines.length > maxSkipped) {
    logger.error({ register_version_id: version.id, skipped: skippedLines.length, lines: skippedLines.slice(0, 20) }, 'register.import_refused');
    const first = skippedLines.slice(0, 5).map((s) => `line ${s.line}: ${s.reason}`).join('; ');
    throw new RegisterImportError(
      `${skippedLines.length} unusable record(s) (${first}); at most ${maxSkipped} may be skipped, version ${version.id} was not sealed`,
    );
  }
  if (batch.length > 0) await deps.store.appendRegisterRecords(version.id, batch);
  const sealed = await deps.store.sealRegisterVersion(version.id);
  logger.info({ register_version_id: sealed.id, record_count: sealed.record_count, skipped: skippedLines.length }, 'register.import_sealed');
  return { version: sealed, skipped: skippedLines.length };
}

/** Makes a sealed version the one checks use, replacing the previous one of its kind at once. */
export async function activateRegister(deps: RegisterImportDeps, versionId: string): Promise<RegisterVersion> {
  const now = deps.now ?? (() => new Date());
  const version = await deps.store.activateRegisterVersion(versionId, now().toISOString());
  deps.logger.info({ module: 'registers.activate', register_version_id: version.id, kind: version.kind }, 'register.activated');
  return version;
}

/** The lines of a UTF-8 byte stream (LF or CRLF), empty lines included, without a BOM. */
export async function* utf8Lines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let first = true;
  for await (const chunk of chunks) {
    rest += decoder.decode(chunk, { stream: true });
    if (first && rest.length > 0) {
      if (rest.charCodeAt(0) === 0xfeff) rest = rest.slice(1);
      first = false;
    }
    let newline = rest.indexOf('\n');
    let start = 0;
    while (newline >= 0) {
      const end = newline > start && rest.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      yield rest.slice(start, end);
      start = newline + 1;
      newline = rest.indexOf('\n', start);
    }
    rest = rest.slice(start);
  }
  rest += decoder.decode();
  if (rest.length > 0) yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}
