/**
 * One readable line per log record, for `npm start` on a terminal (LOG_FORMAT=pretty):
 * `12:03:04.567 INFO  robinson  job.done  job_id=… rows=10000`. Our own few lines rather than
 * pino-pretty: it would add a dozen packages to format what is always a flat object of ids and counts.
 * No colours: the worker threads' stdout is never a terminal, and all lines should look alike.
 */
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const LEFT_OUT = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname']);

/** `line` is one JSON record as pino writes it; the answer ends with a newline. */
export function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[record.level as number] ?? String(record.level);
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const fields = Object.entries(record)
    .filter(([key, value]) => !LEFT_OUT.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  return `${[time, level, String(record.name ?? ''), String(record.msg ?? ''), ...fields].join('  ').trimEnd()}\n`;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}
