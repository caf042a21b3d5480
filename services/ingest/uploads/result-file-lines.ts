import type { CheckResult } from '../../domain/types.ts';

/**
 * A result file's rows as the store gives them (JobStore.readResultVerdicts; docs/architecture.md
 * "Result files"): each row's id and verdict as JSON text, the verdict being the result without
 * its id and resolved address, which the file never shows. A verdict takes few distinct values
 * over a million rows and rows of one record with one verdict share one string, so each text is
 * parsed once and its rows share the parsed object (read-only), which lets the CSV writer reuse
 * its encoded verdict cells too.
 */
export interface ResultFileVerdicts {
  /** The verdict fields (all but id and address) of a verdict text; shared between rows: never change it. */
  verdict(text: string): CheckResult;
  /** An id's JSON text as its value (null for `null`). */
  id(text: string): string | null;
}

/**
 * Verdicts kept: levels × reasons × changes × list versions stay far below this; company and phone
 * columns carry names that differ per row, so a job with those checks would otherwise grow it
 * without bound.
 */
const MAX_CACHED_VERDICTS = 4096;
/** A quoted id that is its own value: no escape to undo. */
const PLAIN_ID = /^"[^\\]*"$/;
const QUOTE = 0x22;

/** A reader of verdict and id texts with its own cache of parsed verdicts (one per result file). */
export function createResultFileVerdicts(): ResultFileVerdicts {
  const parsed = new Map<string, CheckResult>();
  // The previous row's verdict: rows in a run often share it, and the same string compares at once.
  let lastText: string | null = null;
  let last: CheckResult | null = null;
  return {
    verdict(text) {
      if (text === lastText && last !== null) return last;
      let result = parsed.get(text);
      if (result === undefined) {
        if (parsed.size >= MAX_CACHED_VERDICTS) parsed.clear();
        result = JSON.parse(text) as CheckResult;
        parsed.set(text, result);
      }
      lastText = text;
      last = result;
      return result;
    },
    id(text) {
      return text.charCodeAt(0) === QUOTE && PLAIN_ID.test(text) ? text.slice(1, -1) : (JSON.parse(text) as string | null);
    },
  };
}
