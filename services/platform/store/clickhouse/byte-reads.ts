import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseError } from '@clickhouse/client';
import { createPlainHttp } from './plain-http.ts';
import type { SqlScalar, SqlValue, Statement } from './sql.ts';

/**
 * Bulk byte reads (result pages and result files, as RowBinary) over a plain keep-alive
 * node:http(s) request instead of @clickhouse/client's exec(): the same URL, credentials, database
 * and query parameters the client sends, the query as the body with its Content-Length, and the
 * answer collected as the Buffers the socket delivers. The client's request path costs a timer
 * tick before every request, a chunked body written through a stream pipeline and an async
 * iterator over the answer; for a 5 MB results page that was ~10-20 ms of a 50-90 ms store read
 * under load (docs/performance.md "Measurements"). Everything else (rows, commands, inserts)
 * stays on the client. An `http:` URL is read through plain-http.ts (answers read into buffers of
 * our own, not node:http's 64 KB pieces: the store's read of a page 0.59-0.77x); `https:` through
 * node:https.
 *
 * Errors are the client's: a ClickHouse error answer becomes the client's ClickHouseError
 * (`parseError` of the server's text), a socket error is thrown as it is, and a request that sends
 * nothing for the request timeout fails with the client's "Timeout error.".
 */
export interface ByteReader {
  rowBinary(statement: Statement): Promise<Buffer>;
  close(): void;
}

export interface ByteReaderOptions {
  url: string;
  database: string;
  username: string;
  password: string;
  requestTimeoutMs: number;
}

/** The client's defaults (@clickhouse/client 1.x config): sockets per server, idle socket life. */
const MAX_SOCKETS = 10;
const IDLE_SOCKET_MS = 2500;

export function createByteReader(options: ByteReaderOptions): ByteReader {
  const base = new URL(options.url);
  const secure = base.protocol === 'https:';
  if (!secure && base.protocol !== 'http:') throw new Error('Only HTTP and HTTPS protocols are supported');
  // An idle socket is closed before the server's keep-alive timeout can close it under a request.
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS }) : undefined;
  // Plain http reads its answers into buffers of its own (plain-http.ts); TLS stays on node:https.
  const plain = secure ? null : createPlainHttp({
    host: base.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(base.port || 80), hostHeader: base.host,
    maxSockets: MAX_SOCKETS, idleMs: IDLE_SOCKET_MS, timeoutMs: options.requestTimeoutMs,
  });
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;

  function urlOf(statement: Statement): URL {
    const url = new URL(base);
    const search = new URLSearchParams([['query_id', randomUUID()]]);
    for (const [name, value] of Object.entries(statement.params)) search.append(`param_${name}`, queryParam(value));
    if (options.database !== 'default') search.append('database', options.database);
    url.search = search.toString();
    return url;
  }

  return {
    async rowBinary(statement) {
      const body = Buffer.from(`${statement.query}\nFORMAT RowBinary`, 'utf8');
      if (plain) {
        const url = urlOf(statement);
        const answer = await plain.post(`${url.pathname}${url.search}`, { Authorization: authorization }, body);
        if (answer.status >= 200 && answer.status < 300 && !answer.headers.has('x-clickhouse-exception-code')) return answer.body;
        throw parseError(answer.body.toString('utf8'));
      }
      return new Promise<Buffer>((resolve, reject) => {
        const request = httpsRequest(urlOf(statement), {
          method: 'POST',
          agent,
          headers: { Authorization: authorization, 'Content-Length': body.length, Connection: 'keep-alive' },
        }, (response) => { collect(response).then(resolve, reject); });
        request.once('error', reject);
        request.setTimeout(options.requestTimeoutMs, () => request.destroy(new Error('Timeout error.')));
        request.end(body);
      });
    },
    close: () => {
      plain?.close();
      agent?.destroy();
    },
  };
}

/** The answer's bytes; a failed answer (status, or the server's exception header) as the client's error. */
function collect(response: IncomingMessage): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
    });
    response.once('error', reject);
    response.once('end', () => {
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300 && response.headers['x-clickhouse-exception-code'] === undefined) resolve(bytes);
      else reject(parseError(bytes.toString('utf8')));
    });
  });
}

/** A query parameter's value as @clickhouse/client formats it (`param_name=…` on the HTTP interface). */
export function queryParam(value: SqlValue): string {
  if (Array.isArray(value)) return `[${value.map((item: SqlScalar) => inArray(item)).join(',')}]`;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'string') return escaped(value);
  return String(value);
}

function inArray(value: SqlScalar): string {
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return `'${escaped(value)}'`;
  return String(value);
}

const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', "'": "\\'", '\\': '\\\\' };

function escaped(value: string): string {
  return value.replace(/[\t\n\r'\\]/g, (c) => ESCAPES[c]);
}
