import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../../services/platform/logger.ts';

/**
 * A services' logger for an end-to-end test that keeps the lines worth showing when the test
 * fails (warnings and errors, and the events named), and drops the rest: a failure message can
 * then say why the server answered as it did (a refused upload's underlying cause, say) without
 * the whole deployment's log.
 */
export function keptLog(events: string[] = []): { logger: Logger; lines: () => string } {
  const kept: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        const { level, msg } = JSON.parse(line) as { level: number; msg: string };
        if (level >= 40 || events.includes(msg)) kept.push(line);
      }
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines: () => kept.slice(-50).join('\n') };
}
