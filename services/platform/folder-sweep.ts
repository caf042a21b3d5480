import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One retention sweep of a folder of personal-data files (the spool and the drafts' uploads,
 * docs/privacy-and-proof.md "Every store: what personal data, how long, what deletes it"): every
 * file `stale` says is done with is removed; a folder not made yet holds nothing. The rule of
 * what is stale stays with each folder's owner. Returns how many files were removed.
 */
export async function sweepFolder(dir: string, stale: (name: string, path: string) => Promise<boolean> | boolean): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    if (!await stale(name, path)) continue;
    await rm(path, { force: true });
    removed += 1;
  }
  return removed;
}

/** When the file was last written, in ms; null when it is gone (another process removed it first). */
export async function modifiedAtMs(path: string): Promise<number | null> {
  return (await stat(path).catch(() => null))?.mtimeMs ?? null;
}
