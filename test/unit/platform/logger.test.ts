import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_EVENTS } from '../../../services/platform/log-events.ts';
import { errorFields, logFormatFor, type Logger } from '../../../services/platform/logger.ts';
import { prettyLine } from '../../../services/platform/pretty-log.ts';

const SERVICES = join(import.meta.dirname, '..', '..', '..', 'services');

/** A logger writing JSON lines into an array, as createLogger's JSON format does. */
function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ name: 'robinson', level: 'debug' }, { write: (line: string) => void lines.push(line) }), lines };
}

describe('the log event catalogue', () => {
  it('names every event `area.what` with a meaning, and each is logged somewhere in services/', () => {
    const sources = readdirSync(SERVICES, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('log-events.ts'))
      .map((file) => readFileSync(join(SERVICES, file), 'utf8'))
      .join('\n');
    for (const [event, meaning] of Object.entries(LOG_EVENTS)) {
      expect(event).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(meaning.length, event).toBeGreaterThan(10);
      expect(sources.includes(`'${event}'`), `${event} is in the catalogue but logged nowhere`).toBe(true);
    }
  });
});

describe('errorFields', () => {
  it('gives name, code and the message, with quoted input and long digit runs blanked', () => {
    const error = Object.assign(new SyntaxError('Unexpected token \'A\', "Anne Hansen, 0101901234" is not valid JSON'), { code: 'E_JSON' });
    expect(errorFields(error)).toEqual({ err: { name: 'SyntaxError', code: 'E_JSON', message: 'Unexpected token …, … is not valid JSON' } });
    expect(errorFields(new Error('row 12: cpr 0101901234 refused\nat line 2')).err.message).toBe('row 12: cpr … refused');
    expect(errorFields('a string thrown').err).toEqual({ name: 'string', message: '' });
  });

  it("keeps no message of a library's own error: it may name the input unquoted", () => {
    const parsed = (() => { try { return JSON.parse('{"name": Anne Hansen}'); } catch (error) { return error; } })();
    expect(errorFields(parsed).err).toEqual({ name: 'SyntaxError', message: '' });
    const library = pino.destination; // any function of a module under node_modules that throws
    const thrown = (() => { try { return library({ dest: '/nonexistent-dir/Anne Hansen.log', sync: true }); } catch (error) { return error; } })();
    expect(JSON.stringify(errorFields(thrown))).not.toContain('Anne');
    const system = Object.assign(new Error("ENOENT: no such file or directory, open '/inbox/Anne Hansen.csv'"), { code: 'ENOENT' });
    expect(errorFields(system).err.message).toBe('ENOENT: no such file or directory, open …');
  });

  it('puts an error into a JSON log line without the refused input', () => {
    const { logger, lines } = capture();
    logger.warn({ job_id: 'j1', ...errorFields(new Error('cannot parse "Nørregade 7"')) }, 'job.publish_failed');
    const record = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(record).toMatchObject({ msg: 'job.publish_failed', job_id: 'j1', err: { name: 'Error', message: 'cannot parse …' } });
    expect(lines[0]).not.toContain('Nørregade');
  });
});

describe('log format', () => {
  it('is LOG_FORMAT when set, else pretty on a terminal and JSON otherwise', () => {
    expect(logFormatFor(undefined, { isTTY: true })).toBe('pretty');
    expect(logFormatFor(undefined, {})).toBe('json');
    expect(logFormatFor('json', { isTTY: true })).toBe('json');
    expect(logFormatFor('pretty', {})).toBe('pretty');
  });

  it('prints one readable line per record: time, level, name, event, then the fields', () => {
    const { logger, lines } = capture();
    logger.child({ module: 'projection' }).info({ job_id: 'j1', rows: 10_000, note: 'two words' }, 'job.done');
    const time = new Date((JSON.parse(lines[0]) as { time: number }).time).toISOString().slice(11, 23);
    expect(prettyLine(lines[0])).toBe(`${time}  INFO   robinson  job.done  module=projection  job_id=j1  rows=10000  note="two words"\n`);
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(prettyLine('plain text')).toBe('plain text\n');
  });
});
