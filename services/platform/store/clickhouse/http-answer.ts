/**
 * One HTTP/1.1 answer read from a socket into buffers of our own (plain-http.ts reads every answer
 * through this): the status line and headers, then the body framed by Content-Length, by chunked
 * transfer coding (a ClickHouse server's answers) or by the end of the connection, the three ways
 * HTTP/1.1 frames a body. No I/O: the socket asks `target()` where its next read goes and
 * says how much it read with `took(n)`, so a body of known length is read straight into the
 * answer's own buffer, in reads as large as the socket has bytes (docs/platform-clickhouse-registry.md
 * "Byte reads": node:http hands a body over in 64 KB pieces, each a callback and a Buffer).
 */
export interface HttpAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Map<string, string>;
  body: Buffer;
  /** Whether the connection may carry another request (HTTP/1.1, no `Connection: close`, a framed body). */
  keepAlive: boolean;
}

/** A broken answer: the socket is not used again. */
export class HttpAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpAnswerError';
  }
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done';

/** A head longer than this is refused (node:http's default limit is 16 KB). */
const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

export class HttpAnswerReader {
  private state: State = 'head';
  /** Bytes read but not yet parsed: the head, chunk framing, chunk data read with framing. */
  private readonly scratch: Buffer;
  private start = 0;
  private end = 0;
  private status = 0;
  private headers = new Map<string, string>();
  private keepAlive = false;
  private body: Buffer = Buffer.alloc(0);
  private filled = 0;
  /** Body bytes still to come: of the whole body (`length`) or of the current chunk (`chunk-data`). */
  private remaining = 0;
  /** Whether any byte of the answer arrived (a reused socket closed before one may be retried). */
  received = false;

  constructor(scratch: Buffer) {
    this.scratch = scratch;
  }

  get done(): boolean {
    return this.state === 'done';
  }

  /** Where the socket's next read goes: the body itself when its bytes come unframed, else the scratch. */
  target(): Buffer {
    if (this.state === 'length' || (this.state === 'chunk-data' && this.start === this.end)) {
      return this.body.subarray(this.filled, this.filled + this.remaining);
    }
    if (this.start === this.end) this.start = this.end = 0;
    if (this.end === this.scratch.length) {
      if (this.start === 0) throw new HttpAnswerError('an answer head or chunk line longer than the read buffer');
      this.scratch.copy(this.scratch, 0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    return this.scratch.subarray(this.end);
  }

  /** `n` bytes were read into the last `target()`. */
  took(n: number): void {
    if (n <= 0) return;
    this.received = true;
    if (this.state === 'done') throw new HttpAnswerError('bytes after the end of an answer');
    if (this.state === 'length' || (this.state === 'chunk-data' && this.start === this.end)) {
      this.filled += n;
      this.remaining -= n;
      if (this.remaining === 0) this.state = this.state === 'length' ? 'done' : 'chunk-end';
    } else {
      this.end += n;
    }
    this.parse();
  }

  /** The connection ended: the answer if it was complete (or framed by that end), else an error. */
  ended(): HttpAnswer {
    if (this.state === 'close') this.state = 'done';
    if (this.state !== 'done') throw new HttpAnswerError(this.received ? 'aborted' : 'socket hang up');
    return this.answer();
  }

  answer(): HttpAnswer {
    if (this.state !== 'done') throw new HttpAnswerError('the answer is not complete');
    return { status: this.status, headers: this.headers, body: this.body.subarray(0, this.filled), keepAlive: this.keepAlive };
  }

  private parse(): void {
    for (;;) {
      const state = this.state;
      if (state === 'head') {
        if (!this.parseHead()) return;
      } else if (state === 'chunk-size') {
        const line = this.line();
        if (line === null) return;
        const size = Number.parseInt(line.split(';', 1)[0].trim(), 16);
        if (!/^[0-9A-Fa-f]+$/.test(line.split(';', 1)[0].trim()) || !Number.isSafeInteger(size)) throw new HttpAnswerError('a bad chunk size');
        if (size === 0) {
          this.state = 'trailers';
        } else {
          this.reserve(size);
          this.remaining = size;
          this.state = 'chunk-data';
        }
      } else if (state === 'chunk-data') {
        if (this.start === this.end) return;
        const n = Math.min(this.remaining, this.end - this.start);
        this.scratch.copy(this.body, this.filled, this.start, this.start + n);
        this.start += n;
        this.filled += n;
        this.remaining -= n;
        if (this.remaining > 0) return;
        this.state = 'chunk-end';
      } else if (state === 'chunk-end') {
        const line = this.line();
        if (line === null) return;
        if (line !== '') throw new HttpAnswerError('a chunk not followed by CRLF');
        this.state = 'chunk-size';
      } else if (state === 'trailers') {
        const line = this.line();
        if (line === null) return;
        if (line === '') this.finish();
      } else if (state === 'close') {
        const n = this.end - this.start;
        if (n === 0) return;
        this.reserve(n);
        this.scratch.copy(this.body, this.filled, this.start, this.end);
        this.filled += n;
        this.start = this.end = 0;
        return;
      } else {
        if (this.start !== this.end) throw new HttpAnswerError('bytes after the end of an answer');
        return;
      }
    }
  }

  private finish(): void {
    if (this.start !== this.end) throw new HttpAnswerError('bytes after the end of an answer');
    this.start = this.end = 0;
    this.state = 'done';
  }

  /** A line ending in CRLF from the scratch (without it), or null until one is there. */
  private line(): string | null {
    const at = this.scratch.subarray(this.start, this.end).indexOf(CRLF);
    if (at === -1) return null;
    const line = this.scratch.toString('latin1', this.start, this.start + at);
    this.start += at + 2;
    return line;
  }

  private parseHead(): boolean {
    const at = this.scratch.subarray(this.start, this.end).indexOf(HEAD_END);
    if (at === -1) {
      if (this.end - this.start > MAX_HEAD_BYTES) throw new HttpAnswerError('an answer head over 64 KB');
      return false;
    }
    const [statusLine, ...lines] = this.scratch.toString('latin1', this.start, this.start + at).split('\r\n');
    this.start += at + 4;
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine);
    if (!status) throw new HttpAnswerError('not an HTTP/1.x status line');
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new HttpAnswerError('a bad header line');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const before = headers.get(name);
      headers.set(name, before === undefined ? value : `${before}, ${value}`);
    }
    const code = Number(status[2]);
    // An interim answer (100 Continue) comes before the real one: read on.
    if (code >= 100 && code < 200) return true;
    this.status = code;
    this.headers = headers;
    const connection = (headers.get('connection') ?? '').toLowerCase();
    this.keepAlive = status[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const coding = (headers.get('transfer-encoding') ?? '').toLowerCase();
    const length = headers.get('content-length');
    if (coding !== '') {
      if (!/(^|,)\s*chunked\s*$/.test(coding)) throw new HttpAnswerError(`a transfer coding this reader does not take: ${coding}`);
      this.state = 'chunk-size';
      this.reserve(64 * 1024);
    } else if (length !== undefined) {
      if (!/^\d{1,15}$/.test(length)) throw new HttpAnswerError('a bad Content-Length');
      const n = Number(length);
      this.body = Buffer.allocUnsafe(n);
      const now = Math.min(n, this.end - this.start);
      this.scratch.copy(this.body, 0, this.start, this.start + now);
      this.start += now;
      this.filled = now;
      this.remaining = n - now;
      if (this.remaining > 0) this.state = 'length';
      else this.finish();
    } else {
      this.keepAlive = false;
      this.state = 'close';
    }
    return true;
  }

  /** Room for `n` more body bytes (a chunked or close-framed body grows by doubling). */
  private reserve(n: number): void {
    if (this.filled + n <= this.body.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.filled + n, this.body.length * 2));
    this.body.copy(grown, 0, 0, this.filled);
    this.body = grown;
  }
}
