import { MAX_ROWS_PER_JOB } from '../../domain/check-job.ts';
import type { PersonRules } from './tokens.ts';
import { IntakeError } from './errors.ts';

/** What a reader accepts. Defaults are the contract's (docs/contract.md Limits, docs/decisions.md §11). */
export interface IntakeLimits {
  /** At most this many people (default 1,000,000). */
  maxPeople?: number;
  /** At least this many people (default 1). */
  minPeople?: number;
  /** Longest string value, in UTF-16 code units as JavaScript and zod count them (default 200). */
  maxStringLength?: number;
  /** People per yielded batch (default 1000). */
  batchSize?: number;
  /** A person field outside PersonInput: an error (default) or dropped. */
  unknownFields?: 'reject' | 'ignore';
}

export interface ResolvedLimits extends PersonRules {
  maxPeople: number;
  minPeople: number;
  batchSize: number;
}

export function resolveLimits(limits: IntakeLimits, allowNewlines: boolean): ResolvedLimits {
  return {
    maxPeople: limits.maxPeople ?? MAX_ROWS_PER_JOB,
    minPeople: limits.minPeople ?? 1,
    maxStringLength: limits.maxStringLength ?? 200,
    batchSize: Math.max(1, limits.batchSize ?? 1000),
    unknownFields: limits.unknownFields ?? 'reject',
    allowNewlines,
  };
}

/**
 * Decodes a byte stream as UTF-8, a multi-byte character split between chunks included; bytes
 * that are not UTF-8 are an IntakeError rather than silently replaced. A leading BOM is dropped.
 */
export function createUtf8Decoder(where: () => { path: string; line?: number }) {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const guard = (decode: () => string): string => {
    try {
      return decode();
    } catch {
      const place = where();
      throw new IntakeError('invalid_utf8', place.path, { line: place.line });
    }
  };
  return {
    decode: (chunk: Uint8Array): string => guard(() => decoder.decode(chunk, { stream: true })),
    end: (): string => guard(() => decoder.decode()),
  };
}
