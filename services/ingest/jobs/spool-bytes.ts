/**
 * Bytes a client sends that must be on local disk before they are read (an uploaded file; a body
 * whose hash must be known first, for an Idempotency-Key), written to a new spool file
 * `upload-<host>-<pid>-<uuid>.part` (mode 0600, never over an existing file), hashed and counted
 * on the way. The one way the API spools raw bytes, so every such path fails alike: on any error
 * the file is gone before the error passes on, and a full disk or quota is SpoolFullError (503
 * `spool_full` at the API), as for a job's spooled rows.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { spoolFullIfDiskFull } from './errors.ts';
import { uploadFileName } from './spool.ts';

export interface SpooledBytes {
  path: string;
  bytes: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

/** Writes `source` to a new file in `dir`; the caller removes it when done with it. */
export async function spoolBytes(source: AsyncIterable<Uint8Array>, dir: string): Promise<SpooledBytes> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, uploadFileName(randomUUID()));
  const out = createWriteStream(path, { mode: 0o600, flags: 'wx' });
  const hash = createHash('sha256');
  let bytes = 0;
  const counted = async function* (chunks: AsyncIterable<Uint8Array>) {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      hash.update(chunk);
      yield chunk;
    }
  };
  try {
    // pipeline listens for the file's errors all along: a write failing while the next chunk is
    // awaited (a full disk) rejects here instead of being an unhandled 'error' event.
    await pipeline(source, counted, out);
  } catch (error) {
    // The file is opened asynchronously: removed before the open has finished, it would come back.
    if (!out.closed) await new Promise((closed) => out.once('close', closed));
    await rm(path, { force: true });
    throw spoolFullIfDiskFull(error);
  }
  return { path, bytes, sha256: hash.digest('hex') };
}
