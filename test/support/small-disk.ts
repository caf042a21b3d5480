/**
 * A real full disk for a test: a tmpfs of `sizeKiB` mounted on a new temp directory, unmounted
 * and removed when the test finishes (as the fault suite's full-spool scenario makes one, at a
 * size a test in `npm test` can fill in milliseconds). Mounting needs root, which the test
 * machines and CI have; without it the test fails, it is never skipped.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';

const run = promisify(execFile);

export async function smallDisk(sizeKiB: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0700`, 'tmpfs', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not mount a ${sizeKiB} KiB tmpfs (the full-disk tests need root)`, { cause: error });
  }
  onTestFinished(async () => {
    await run('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
