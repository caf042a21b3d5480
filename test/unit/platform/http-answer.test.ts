import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpAnswerError, HttpAnswerReader } from '../../../services/platform/store/clickhouse/http-answer.ts';

/**
 * The HTTP/1.1 answer reader of plain-http.ts (services/platform/store/clickhouse/http-answer.ts;
 * docs/platform-clickhouse-registry.md "Byte reads"): whatever sizes the socket's reads come in,
 * a body framed by Content-Length, by chunks (with extensions and trailers) or by the connection's
 * end reads back byte for byte, and a broken answer is refused, never served short.
 */

/** Feeds `wire` to a reader as a socket would: each read at most `sizes[i]` bytes into `target()`. */
function feed(reader: HttpAnswerReader, wire: Buffer, sizes: readonly number[]): void {
  let at = 0;
  for (let i = 0; at < wire.length && !reader.done; i++) {
    const target = reader.target();
    const n = Math.min(target.length, wire.length - at, sizes[i % sizes.length]);
    wire.copy(target, 0, at, at + n);
    at += n;
    reader.took(n);
  }
}

function chunked(body: Buffer, cuts: readonly number[], extras = ''): Buffer {
  const parts: Buffer[] = [Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-ClickHouse-Format: RowBinary\r\n\r\n`)];
  let at = 0;
  for (const cut of [...cuts, body.length]) {
    const end = Math.min(body.length, at + cut);
    if (end > at) parts.push(Buffer.from(`${(end - at).toString(16)}${extras}\r\n`), body.subarray(at, end), Buffer.from('\r\n'));
    at = end;
  }
  parts.push(Buffer.from(`0\r\n${extras ? 'X-Trailer: 1\r\n' : ''}\r\n`));
  return Buffer.concat(parts);
}

const bodies = fc.uint8Array({ minLength: 0, maxLength: 5000 }).map((bytes) => Buffer.from(bytes));
const reads = fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 20 });

describe('HTTP/1.1 answers read into our own buffers', () => {
  it('reads a Content-Length body whole, in any read sizes, and keeps the connection', () => {
    fc.assert(fc.property(bodies, reads, (body, sizes) => {
      const reader = new HttpAnswerReader(Buffer.alloc(256));
      feed(reader, Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nX-Two: a\r\nx-two: b\r\n\r\n`), body]), sizes);
      const answer = reader.answer();
      expect(answer.body.equals(body)).toBe(true);
      expect(answer).toMatchObject({ status: 200, keepAlive: true });
      expect(answer.headers.get('x-two')).toBe('a, b');
    }));
  });

  it('reads a chunked body whole, with chunk extensions and trailers, in any read sizes', () => {
    fc.assert(fc.property(bodies, fc.array(fc.integer({ min: 1, max: 2000 }), { maxLength: 10 }), reads, fc.boolean(), (body, cuts, sizes, extras) => {
      const reader = new HttpAnswerReader(Buffer.alloc(300));
      feed(reader, chunked(body, cuts, extras ? ';name=value' : ''), sizes);
      expect(reader.done).toBe(true);
      expect(reader.answer().body.equals(body)).toBe(true);
      expect(reader.answer().headers.get('x-clickhouse-format')).toBe('RowBinary');
    }));
  });

  it('reads a body framed by the connection\'s end, and does not keep that connection', () => {
    fc.assert(fc.property(bodies, reads, (body, sizes) => {
      const reader = new HttpAnswerReader(Buffer.alloc(200));
      feed(reader, Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n'), body]), sizes);
      const answer = reader.ended();
      expect(answer.body.equals(body)).toBe(true);
      expect(answer.keepAlive).toBe(false);
    }));
  });

  it('skips an interim 100 Continue, and tells Connection: close and HTTP/1.0 apart from keep-alive', () => {
    const cases: Array<[string, boolean]> = [
      ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\nX-ClickHouse-Exception-Code: 60\r\n\r\nno', true],
      ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno', false],
      ['HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nno', false],
      ['HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nno', true],
    ];
    for (const [wire, keepAlive] of cases) {
      const reader = new HttpAnswerReader(Buffer.alloc(256));
      feed(reader, Buffer.from(wire), [7]);
      expect(reader.answer().keepAlive).toBe(keepAlive);
      expect(reader.answer().body.toString()).toBe('no');
    }
    const error = new HttpAnswerReader(Buffer.alloc(256));
    feed(error, Buffer.from(cases[0][0]), [1000]);
    expect(error.answer()).toMatchObject({ status: 500 });
    expect(error.answer().headers.get('x-clickhouse-exception-code')).toBe('60');
  });

  it('refuses an answer cut short, bad framing and bytes after the answer, never serving part of a body', () => {
    const short = new HttpAnswerReader(Buffer.alloc(256));
    feed(short, Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), [100]);
    expect(() => short.ended()).toThrow('aborted');
    const shortChunk = new HttpAnswerReader(Buffer.alloc(256));
    feed(shortChunk, chunked(Buffer.from('abcdef'), [3]).subarray(0, -5), [100]);
    expect(() => shortChunk.ended()).toThrow('aborted');
    expect(() => new HttpAnswerReader(Buffer.alloc(256)).ended()).toThrow('socket hang up');
    const bad = ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'SSH-2.0-OpenSSH\r\n\r\n', 'HTTP/1.1 200 OK\r\nno colon\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naX\r\n'];
    for (const wire of bad) {
      const reader = new HttpAnswerReader(Buffer.alloc(256));
      expect(() => feed(reader, Buffer.from(wire), [100]), wire).toThrow(HttpAnswerError);
    }
    const long = new HttpAnswerReader(Buffer.alloc(128 * 1024));
    expect(() => feed(long, Buffer.from(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70_000)}`), [100_000])).toThrow('64 KB');
  });
});
