import { connect, type Socket } from 'node:net';
import { HttpAnswerError, HttpAnswerReader, type HttpAnswer } from './http-answer.ts';

/**
 * POST requests over plain-TCP HTTP/1.1 keep-alive connections whose answers are read into buffers
 * of our own (http-answer.ts), for byte-reads.ts' bulk reads from an `http:` ClickHouse URL. A
 * socket created with `onread` reads as much as the kernel holds into the buffer it is given: a
 * 5 MB results page arrived in a few reads straight into the page's buffer, where node:http takes
 * ~80 reads of 64 KB, a callback and a Buffer each, and the Buffers then joined
 * (docs/platform-clickhouse-registry.md "Byte reads"). `https:` URLs stay on node:https.
 *
 * What a pool of connections must do, as node:http's Agent does for byte-reads.ts before: at most
 * `maxSockets` open, idle ones closed after `idleMs` (before a server's keep-alive timeout can
 * close one under a request), a request idle for `timeoutMs` failed with "Timeout error.". One
 * request at a time on a connection, its head and body in one write (a body written after its
 * head waits on the server's delayed acknowledgement). A connection that closed while idle is
 * found on the next request before any byte of its answer: that request goes again once on a
 * new connection (these are reads).
 */
export interface PlainHttp {
  post(path: string, headers: Record<string, string>, body: Buffer): Promise<HttpAnswer>;
  close(): void;
}

export interface PlainHttpOptions {
  host: string;
  port: number;
  /** The Host header: the URL's host (with its port). */
  hostHeader: string;
  maxSockets: number;
  idleMs: number;
  timeoutMs: number;
}

/** The read buffer of a connection: an answer's head and chunk framing, chunks read with their framing. */
const SCRATCH_BYTES = 1024 * 1024;

interface Exchange {
  reader: HttpAnswerReader;
  resolve(answer: HttpAnswer): void;
  reject(error: Error): void;
}

interface Connection {
  socket: Socket;
  /** Its read buffer, reused by every answer on it. */
  scratch: Buffer;
  exchange: Exchange | null;
  idleTimer: NodeJS.Timeout | null;
  /** Whether it carried a request before (a closed idle connection is retried once). */
  used: boolean;
}

export function createPlainHttp(options: PlainHttpOptions): PlainHttp {
  const idle: Connection[] = [];
  const waiting: Array<(connection: Connection) => void> = [];
  let open = 0;
  let closed = false;

  function openConnection(): Connection {
    const connection: Connection = { socket: null as unknown as Socket, scratch: Buffer.allocUnsafe(SCRATCH_BYTES), exchange: null, idleTimer: null, used: false };
    const fail = (error: Error) => {
      const exchange = connection.exchange;
      connection.exchange = null;
      exchange?.reject(error);
      connection.socket.destroy();
    };
    connection.socket = connect({
      host: options.host,
      port: options.port,
      noDelay: true,
      onread: {
        // Where the next read goes; asked again after every read (bytes between requests land in the scratch).
        buffer: () => {
          try {
            return connection.exchange?.reader.target() ?? connection.scratch;
          } catch (error) {
            fail(error as Error);
            return connection.scratch;
          }
        },
        callback: (n) => {
          const exchange = connection.exchange;
          if (!exchange) {
            fail(new HttpAnswerError('bytes from the server between requests'));
            return false;
          }
          try {
            exchange.reader.took(n);
          } catch (error) {
            fail(error as Error);
            return false;
          }
          if (!exchange.reader.done) return true;
          connection.exchange = null;
          const answer = exchange.reader.answer();
          if (answer.keepAlive) release(connection);
          else connection.socket.destroy();
          exchange.resolve(answer);
          return true;
        },
      },
    });
    connection.socket.on('end', () => {
      const exchange = connection.exchange;
      connection.exchange = null;
      if (exchange) {
        try {
          exchange.resolve(exchange.reader.ended());
        } catch (error) {
          exchange.reject(error as Error);
        }
      }
      connection.socket.destroy();
    });
    connection.socket.on('error', (error) => fail(error));
    connection.socket.on('timeout', () => {
      if (connection.exchange) fail(new Error('Timeout error.'));
      else connection.socket.destroy();
    });
    connection.socket.on('close', () => {
      open -= 1;
      const at = idle.indexOf(connection);
      if (at !== -1) idle.splice(at, 1);
      if (connection.idleTimer) clearTimeout(connection.idleTimer);
      fail(new HttpAnswerError('socket hang up'));
      const next = waiting.shift();
      if (next && !closed) {
        open += 1;
        next(openConnection());
      }
    });
    return connection;
  }

  function release(connection: Connection): void {
    if (closed) {
      connection.socket.destroy();
      return;
    }
    const next = waiting.shift();
    if (next) {
      next(connection);
      return;
    }
    idle.push(connection);
    connection.socket.setTimeout(0);
    connection.idleTimer = setTimeout(() => connection.socket.destroy(), options.idleMs);
    connection.idleTimer.unref();
    connection.socket.unref();
  }

  function acquire(fresh: boolean): Promise<Connection> {
    const reused = fresh ? undefined : idle.pop();
    if (reused) {
      if (reused.idleTimer) clearTimeout(reused.idleTimer);
      reused.idleTimer = null;
      return Promise.resolve(reused);
    }
    if (open < options.maxSockets) {
      open += 1;
      return Promise.resolve(openConnection());
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function exchangeOn(connection: Connection, reader: HttpAnswerReader, request: Buffer): Promise<HttpAnswer> {
    return new Promise<HttpAnswer>((resolve, reject) => {
      connection.exchange = { reader, resolve, reject };
      connection.socket.ref();
      connection.socket.setTimeout(options.timeoutMs);
      connection.socket.write(request);
    });
  }

  return {
    async post(path, headers, body) {
      if (closed) throw new Error('the connection pool is closed');
      let head = `POST ${path} HTTP/1.1\r\nHost: ${options.hostHeader}\r\n`;
      for (const [name, value] of Object.entries({ ...headers, 'Content-Length': String(body.length), Connection: 'keep-alive' })) head += `${name}: ${value}\r\n`;
      const request = Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]);
      const connection = await acquire(false);
      const reused = connection.used;
      connection.used = true;
      const reader = new HttpAnswerReader(connection.scratch);
      try {
        return await exchangeOn(connection, reader, request);
      } catch (error) {
        // An idle connection the server closed: nothing of an answer came, so the read goes again.
        if (!reused || reader.received || !isHangUp(error)) throw error;
        const again = await acquire(true);
        again.used = true;
        return exchangeOn(again, new HttpAnswerReader(again.scratch), request);
      }
    },
    close() {
      closed = true;
      for (const connection of idle.splice(0)) connection.socket.destroy();
    },
  };
}

function isHangUp(error: unknown): boolean {
  if (error instanceof HttpAnswerError) return error.message === 'socket hang up';
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
