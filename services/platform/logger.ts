import { pino } from 'pino';

/**
 * The structured logger every module receives as a dependency (never imported globally inside
 * library code). Rule for callers: log ids, counts and codes, never names, addresses or phone
 * numbers.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({ name: options.name ?? 'robinson', level: options.level ?? 'info' });
}

/** A logger that drops everything, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
