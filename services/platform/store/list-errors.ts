import { VersionMisuseError, type VersionMisuse } from './versioned-blocks.ts';

/**
 * Errors every ListStore adapter throws for the same misuse, so callers (admin CLI, importer) can
 * tell them apart from I/O failures whatever the adapter. Worded by VersionMisuseError.
 */
const LIST = { noun: 'list', items: 'entries' };

export class ListVersionNotFoundError extends VersionMisuseError {
  override readonly name = 'ListVersionNotFoundError';
  constructor(id: string) { super(LIST, 'not_found', id); }
}

export class ListVersionSealedError extends VersionMisuseError {
  override readonly name = 'ListVersionSealedError';
  constructor(id: string) { super(LIST, 'sealed', id); }
}

export class ListVersionNotSealedError extends VersionMisuseError {
  override readonly name = 'ListVersionNotSealedError';
  constructor(id: string) { super(LIST, 'not_sealed', id); }
}

/** What both list store adapters throw for each misuse (their versioned blocks' `misuse`). */
export const LIST_VERSION_MISUSE: VersionMisuse = {
  notFound: (id) => new ListVersionNotFoundError(id),
  sealed: (id) => new ListVersionSealedError(id),
  notSealed: (id) => new ListVersionNotSealedError(id),
};
