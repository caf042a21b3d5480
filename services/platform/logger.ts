import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { LogEvent } from './log-events.ts';
import { prettyLine } from './pretty-log.ts';

export type { LogEvent } from './log-events.ts';

/**
 * The structured logger every module receives as a dependency (never imported globally inside
 * library code). Each line is one event of the catalogue (log-events.ts) with fields beside it.
 * Rule for callers: log ids, counts and codes, never names, addresses or phone numbers; an error
 * goes in as `errorFields(error)`.
 */
export interface Logger {
  debug(fields: object, event: LogEvent): void;
  info(fields: object, event: LogEvent): void;
  warn(fields: object, event: LogEvent): void;
  error(fields: object, event: LogEvent): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** `json`: one JSON object per line (for machines); `pretty`: one readable line (for a terminal). */
export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT when set, else pretty on a terminal and JSON otherwise (a pipe, a file, a collector). */
export function logFormatFor(configured: LogFormat | undefined, stream: { isTTY?: boolean }): LogFormat {
  return configured ?? (stream.isTTY ? 'pretty' : 'json');
}

/** Lines on stdout; `stderr: true` for a CLI whose stdout is its answer. */
export function createLogger(options: { level?: string; name?: string; stderr?: boolean; format?: LogFormat } = {}): Logger {
  const settings = { name: options.name ?? 'robinson', level: options.level ?? 'info' };
  if (options.format === 'pretty') {
    const out = options.stderr ? process.stderr : process.stdout;
    return pino(settings, { write: (line: string) => void out.write(prettyLine(line)) });
  }
  return options.stderr ? pino(settings, pino.destination(2)) : pino(settings);
}

/** A logger that drops everything, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * The one way to put an error in a log line: `logger.warn({ job_id, ...errorFields(error) }, event)`.
 * Its name and code, and its message with quoted parts and long digit runs blanked and cut short:
 * messages of other libraries (JSON.parse, ClickHouse, zod) quote the input they refused, and that
 * input may be a person's data. A library's own error (made under node_modules or inside V8, e.g.
 * ssh2-sftp-client naming a customer's file unquoted) keeps no message at all; Node's system
 * errors (code E…) keep theirs, as they quote their paths.
 */
export function errorFields(error: unknown): { err: { name: string; message: string; code?: string } } {
  if (!(error instanceof Error)) return { err: { name: typeof error, message: '' } };
  const code = (error as { code?: unknown }).code;
  const systemError = typeof code === 'string' && /^E[A-Z]+$/.test(code);
  return {
    err: {
      name: error.name,
      message: systemError || madeByOurCode(error) ? safeMessage(error.message) : '',
      ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    },
  };
}

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

/** Whether the error was made in this repository's code (its first stack frame), not a library's. */
function madeByOurCode(error: Error): boolean {
  const firstFrame = error.stack?.split('\n').find((line) => /^\s+at /.test(line));
  return firstFrame !== undefined && firstFrame.includes(REPOSITORY) && !firstFrame.includes('/node_modules/');
}

const QUOTED = /"[^"]*"|'[^']*'|`[^`]*`|«[^»]*»/g;
const DIGIT_RUN = /\d{6,}/g;
const MESSAGE_LENGTH = 200;

function safeMessage(message: string): string {
  const firstLine = message.split('\n', 1)[0];
  const blanked = firstLine.replace(QUOTED, '…').replace(DIGIT_RUN, '…');
  return blanked.length > MESSAGE_LENGTH ? `${blanked.slice(0, MESSAGE_LENGTH)}…` : blanked;
}
