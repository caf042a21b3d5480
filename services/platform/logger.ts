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

/** JSON lines on stdout; `stderr: true` for a CLI whose stdout is its answer. */
export function createLogger(options: { level?: string; name?: string; stderr?: boolean } = {}): Logger {
  const settings = { name: options.name ?? 'robinson', level: options.level ?? 'info' };
  return options.stderr ? pino(settings, pino.destination(2)) : pino(settings);
}

/** A logger that drops everything, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
