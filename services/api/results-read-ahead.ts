import type { JobRecord, ResultBytesPage } from '../platform/store/jobs-port.ts';

/**
 * The next results page of a done job, read while the client still takes in the page before
 * (docs/architecture.md "Results pages", "Read-ahead"): a client paging through a job asks for
 * the pages one after another, so the store's work on page n + 1 can overlap the client's work on
 * page n. This is only the cache; whether a page read ahead may be served is the route's question
 * (it asks the store, one small statement, every time: a job deleted by any process is never
 * served from here).
 *
 * Bounded three ways, because the pages are personal data held in memory: an entry lives at most
 * `ttlMs` (a timer drops it, requests or not), the cache holds at most `maxPages` pages (the oldest
 * goes first) and `maxBytes` of them (a page larger than that alone is not kept). Nothing here logs.
 */
export interface ReadAheadKey {
  org_id: string;
  mode: 'live' | 'test';
  job_id: string;
  /** The store cursor the page starts after (not the sealed one the client holds). */
  cursor: string;
  limit: number;
}

/** What a page needs besides its bytes to be answered: the job's id and list version. */
export type ReadAheadJob = Pick<JobRecord, 'id' | 'list_version'>;

export interface ReadAheadPage {
  job: ReadAheadJob;
  page: ResultBytesPage;
}

export interface ReadAheadLimits {
  maxPages: number;
  maxBytes: number;
  ttlMs: number;
}

/** docs/architecture.md "Read-ahead": one page ahead for a few clients at once, gone within 30 s. */
export const READ_AHEAD_LIMITS: ReadAheadLimits = { maxPages: 8, maxBytes: 64 * 1024 * 1024, ttlMs: 30_000 };

/** What the cache did, for tests and the bench (no job ids, no contents). */
export interface ReadAheadCounts {
  /** Reads started. */
  started: number;
  /** Pages taken out of the cache by a request for exactly their key. */
  taken: number;
  /** Reads that failed (the request that comes for the page reads it itself). */
  failed: number;
  /** Entries dropped unused: expired, pushed out by the bounds, or forgotten with their job. */
  dropped: number;
}

export interface ResultsReadAhead {
  /** Starts reading `key`'s page (`read`) unless it is held already. */
  start(key: ReadAheadKey, job: ReadAheadJob, read: () => Promise<ResultBytesPage>): void;
  /**
   * The page read ahead for exactly `key`, taken out of the cache (awaited if still in flight);
   * null when none is held or its read failed.
   */
  take(key: ReadAheadKey): Promise<ReadAheadPage | null> | null;
  /** Drops every page held of the job (its personal data was deleted here, or it is no longer servable). */
  forgetJob(jobId: string): void;
  /** Pages (in flight included) and bytes (of those read) held now, of one job when `jobId` is given. */
  held(jobId?: string): { pages: number; bytes: number };
  counts(): ReadAheadCounts;
}

interface Entry {
  job: ReadAheadJob;
  page: Promise<ReadAheadPage | null>;
  bytes: number;
  timer: NodeJS.Timeout;
}

function keyText(key: ReadAheadKey): string {
  // No part holds a NUL: ids are uuids, cursors base64url, org ids uuids, mode and limit fixed words.
  return `${key.org_id}\0${key.mode}\0${key.job_id}\0${key.cursor}\0${key.limit}`;
}

function bytesOf(page: ResultBytesPage): number {
  let bytes = 0;
  for (const piece of page.pieces) bytes += piece.length;
  return bytes;
}

export function createResultsReadAhead(limits: ReadAheadLimits = READ_AHEAD_LIMITS): ResultsReadAhead {
  // A Map keeps insertion order: its first entry is the oldest.
  const entries = new Map<string, Entry>();
  const counts: ReadAheadCounts = { started: 0, taken: 0, failed: 0, dropped: 0 };
  let bytes = 0;

  function remove(text: string, entry: Entry): void {
    if (entries.get(text) !== entry) return;
    entries.delete(text);
    clearTimeout(entry.timer);
    bytes -= entry.bytes;
  }

  function drop(text: string, entry: Entry): void {
    if (entries.get(text) !== entry) return;
    remove(text, entry);
    counts.dropped += 1;
  }

  /** The oldest entries out until the bounds hold (`keep` stays: the one just read). */
  function shrink(maxPages: number, keep?: Entry): void {
    for (const [text, entry] of entries) {
      if (entries.size <= maxPages && bytes <= limits.maxBytes) return;
      if (entry !== keep) drop(text, entry);
    }
  }

  return {
    start(key, job, read) {
      if (limits.maxPages <= 0) return;
      const text = keyText(key);
      if (entries.has(text)) return;
      shrink(limits.maxPages - 1);
      counts.started += 1;
      const entry: Entry = {
        job,
        page: Promise.resolve(null),
        bytes: 0,
        timer: setTimeout(() => drop(text, entry), limits.ttlMs).unref(),
      };
      entry.page = (async () => read())().then((page) => {
        if (entries.get(text) === entry) {
          entry.bytes = bytesOf(page);
          bytes += entry.bytes;
          if (entry.bytes > limits.maxBytes) drop(text, entry);
          else shrink(limits.maxPages, entry);
        }
        return { job, page };
      }, () => {
        // The error is not kept or logged (the request for the page reads it again and meets it there).
        counts.failed += 1;
        remove(text, entry);
        return null;
      });
      entries.set(text, entry);
    },

    take(key) {
      const text = keyText(key);
      const entry = entries.get(text);
      if (!entry) return null;
      remove(text, entry);
      counts.taken += 1;
      return entry.page;
    },

    forgetJob(jobId) {
      for (const [text, entry] of entries) if (entry.job.id === jobId) drop(text, entry);
    },

    held(jobId) {
      if (jobId === undefined) return { pages: entries.size, bytes };
      let pages = 0;
      let jobBytes = 0;
      for (const entry of entries.values()) {
        if (entry.job.id !== jobId) continue;
        pages += 1;
        jobBytes += entry.bytes;
      }
      return { pages, bytes: jobBytes };
    },
    counts: () => ({ ...counts }),
  };
}
