/**
 * Errors every ListStore adapter throws for the same misuse, so callers (admin CLI, importer) can
 * tell them apart from I/O failures whatever the adapter.
 */
export class ListVersionNotFoundError extends Error {
  constructor(id: string) {
    super(`list version ${id} does not exist`);
    this.name = 'ListVersionNotFoundError';
  }
}

export class ListVersionSealedError extends Error {
  constructor(id: string) {
    super(`list version ${id} is sealed; entries can no longer be appended`);
    this.name = 'ListVersionSealedError';
  }
}

export class ListVersionNotSealedError extends Error {
  constructor(id: string) {
    super(`list version ${id} is not sealed (its import is not whole) and cannot be activated`);
    this.name = 'ListVersionNotSealedError';
  }
}
