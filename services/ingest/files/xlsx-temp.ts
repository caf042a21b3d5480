import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Where exceljs puts its temporary copies of worksheets.
 *
 * exceljs's streaming reader (with `sharedStrings: 'emit'`, xlsx-reader.ts) copies each sheet's
 * XML, the customer's rows, to a temp file made by the `tmp` package and parses it after the whole
 * zip has been read. `tmp` puts it in the OS temp dir and removes it at exit, which a SIGKILL
 * skips; exceljs offers no option for the place. So the `tmp` that exceljs loads is told to
 * create those files in `dir` (the spool directory) under a name from `nameOf`, which the spool's
 * stale-file sweep recognises (owner host and pid): a killed process's copy is removed like its
 * spool and upload files, and retention or shredding of the spool covers it.
 *
 * Process-wide (exceljs has one `tmp`); calling it again changes the directory.
 */
interface TmpModule {
  file: (...args: unknown[]) => unknown;
}

const exceljsTmp = createRequire(createRequire(import.meta.url).resolve('exceljs'))('tmp') as TmpModule;
const originalFile = exceljsTmp.file;
let target: { dir: string; nameOf: () => string } | null = null;

export function keepXlsxTempFilesIn(dir: string, nameOf: () => string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  target = { dir, nameOf };
  exceljsTmp.file = (...args: unknown[]) => {
    if (!target) return originalFile(...args);
    // exceljs calls tmp.file(callback); options from any other caller are kept, place and name are ours.
    const [first, ...rest] = args;
    const options = typeof first === 'function' ? {} : (first as object);
    const callback = (typeof first === 'function' ? first : rest[0]) as TmpFileCallback;
    const copies = copiesOfRead.getStore();
    return originalFile({ ...options, tmpdir: target.dir, dir: '', name: target.nameOf(), mode: 0o600 }, copies ? tracked(copies, callback) : callback);
  };
}

type TmpFileCallback = (error: Error | null, path: string, fd: number, cleanup: (done?: () => void) => void) => void;

/**
 * The sheet copies of one read still on disk (each one's removal). exceljs removes a copy only
 * once its sheet was iterated past: when the read fails (no room for the copy, XML it cannot
 * parse), the copy stays, its descriptor open, until the process exits. The read removes them.
 */
export type XlsxTempCopies = Set<() => Promise<void>>;

const copiesOfRead = new AsyncLocalStorage<XlsxTempCopies>();

/** Runs one step of a read (a `next()` of exceljs's parse) so that the copies it makes go into `copies`. */
export function inXlsxRead<T>(copies: XlsxTempCopies, step: () => T): T {
  return copiesOfRead.run(copies, step);
}

/** Removes (descriptor closed, file unlinked) every copy of a read that is still there, and waits for removals under way. */
export async function removeXlsxTempCopies(copies: XlsxTempCopies): Promise<void> {
  await Promise.all([...copies].map((remove) => remove()));
}

function tracked(copies: XlsxTempCopies, callback: TmpFileCallback): TmpFileCallback {
  return (error, path, fd, cleanup) => {
    if (error) return callback(error, path, fd, cleanup);
    let removed: Promise<void> | null = null;
    // Listed until the file is gone, not just until its removal began: exceljs starts it without
    // waiting, and a read that ends then must still wait for it (removeXlsxTempCopies).
    const remove = () => {
      removed ??= new Promise((done) => cleanup(() => {
        copies.delete(remove);
        done();
      }));
      return removed;
    };
    copies.add(remove);
    // exceljs calls its cleanup without waiting: it gets the same removal.
    return callback(error, path, fd, () => void remove());
  };
}
