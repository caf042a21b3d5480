/**
 * The embedded database (personal data, callback secrets, the service's private keys) is readable
 * by the service's user only (docs/privacy-and-proof.md "Every store"): a new data directory
 * 0700, the database, its WAL and shared-memory files 0600, whatever the umask; an older file left
 * world-readable is tightened when opened.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedDatabasePath, openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('the embedded database is private to the service user', () => {
  it('a new DATA_DIR is 0700; robinson.sqlite, -wal and -shm are 0600 under a permissive umask', () => {
    const root = mkdtempSync(join(tmpdir(), 'db-modes-'));
    roots.push(root);
    const dataDir = join(root, 'data');
    const path = embeddedDatabasePath(dataDir);
    const umask = process.umask(0o022);
    try {
      const db = openEmbeddedDatabase(path);
      db.exec('CREATE TABLE t (x TEXT)');
      db.prepare('INSERT INTO t VALUES (?)').run('Åse Jensen');
      expect(modeOf(dataDir)).toBe(0o700);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(modeOf(file), file).toBe(0o600);
      db.close();
    } finally {
      process.umask(umask);
    }
  });

  it('a database file an older version left 0644 is 0600 once opened', () => {
    const root = mkdtempSync(join(tmpdir(), 'db-modes-'));
    roots.push(root);
    const path = embeddedDatabasePath(root);
    writeFileSync(path, '', { mode: 0o644 });
    expect(modeOf(path)).toBe(0o644);
    openEmbeddedDatabase(path).close();
    expect(modeOf(path)).toBe(0o600);
  });
});
