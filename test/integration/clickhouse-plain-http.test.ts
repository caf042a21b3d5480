/**
 * The plain-http.ts connections of the ClickHouse byte reads (docs/platform-clickhouse-registry.md
 * "Byte reads") against node:http's own server as the reference HTTP/1.1 implementation (a
 * ClickHouse server answers chunked, the test front with Content-Length: both are framing this
 * server writes) and a raw TCP server for what a server may do to a connection (close it while
 * idle, cut an answer short, never answer). The same reads against ClickHouse itself are in
 * clickhouse-byte-reads.test.ts and the store's tests.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlainHttp, type PlainHttp } from '../../services/platform/store/clickhouse/plain-http.ts';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function listening<S extends Server | TcpServer>(server: S): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A pool whose own idle close (2.5 s in byte-reads.ts) cannot fall between two requests of a loaded machine. */
function client(port: number, options: { maxSockets?: number; timeoutMs?: number } = {}): PlainHttp {
  const http = createPlainHttp({
    host: '127.0.0.1', port, hostHeader: `127.0.0.1:${port}`, maxSockets: options.maxSockets ?? 10, idleMs: 600_000, timeoutMs: options.timeoutMs ?? 60_000,
  });
  closers.push(() => http.close());
  return http;
}

describe('plain HTTP/1.1 reads for ClickHouse byte reads', () => {
  it('reads Content-Length and chunked answers of any size byte for byte, the request as sent, over kept connections', async () => {
    const bodies = [0, 1, 70_000, 5_000_000].map((n) => randomBytes(n));
    const connections: Socket[] = [];
    const server = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        const [index, framing] = (request.url ?? '').slice(1).split('?')[0].split('/');
        const body = bodies[Number(index)];
        response.setHeader('X-Echo', `${request.method} ${request.headers.authorization} ${Buffer.concat(parts).toString('utf8')}`);
        if (framing === 'length') {
          response.writeHead(200, { 'Content-Length': body.length }).end(body);
          return;
        }
        // No length: node:http frames the answer in chunks, one per write, as a server streams.
        response.writeHead(200);
        for (let at = 0; at < body.length; at += 100_003) response.write(body.subarray(at, at + 100_003));
        response.end();
      });
    });
    server.on('connection', (socket: Socket) => connections.push(socket));
    // Its own idle timeout (5 s by default) must not close the connection between two requests of a loaded machine.
    server.keepAliveTimeout = 600_000;
    const http = client(await listening(server));
    for (const framing of ['length', 'chunked']) {
      for (const [index, body] of bodies.entries()) {
        const answer = await http.post(`/${index}/${framing}?query_id=x&param_p0=%C3%86`, { Authorization: 'Basic abc' }, Buffer.from(`SELECT ${index} ÆØÅ`));
        expect(answer.status).toBe(200);
        expect(answer.body.equals(body), `${framing} body ${index}`).toBe(true);
        expect(answer.headers.get('x-echo')).toBe(`POST Basic abc SELECT ${index} ÆØÅ`);
        if (framing === 'chunked') expect(answer.headers.get('transfer-encoding')).toBe('chunked');
      }
    }
    expect(connections.length, 'one connection for all eight requests').toBe(1);
  }, 120_000);

  it('opens at most maxSockets connections for concurrent reads, each answered whole', async () => {
    let open = 0;
    let most = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.end(request.url));
    });
    server.on('connection', (socket: Socket) => {
      open += 1;
      most = Math.max(most, open);
      socket.on('close', () => { open -= 1; });
    });
    const http = client(await listening(server), { maxSockets: 2 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => http.post(`/${i}`, {}, Buffer.from('x'))));
    expect(answers.map((a) => a.body.toString())).toEqual(Array.from({ length: 12 }, (_, i) => `/${i}`));
    expect(most).toBe(2);
  }, 120_000);

  it('reads again on a new connection when the server closed an idle one, and fails an answer cut short as aborted', async () => {
    const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
    let connections = 0;
    // Answers one request per connection and then closes it without saying so, as a server's keep-alive timeout does.
    const server = createTcpServer((socket) => {
      connections += 1;
      socket.once('data', () => socket.end(answer));
      socket.on('error', () => undefined);
    });
    const http = client(await listening(server));
    expect((await http.post('/', {}, Buffer.from('1'))).body.toString()).toBe('ok');
    expect((await http.post('/', {}, Buffer.from('2'))).body.toString()).toBe('ok');
    expect(connections).toBe(2);

    const cut = createTcpServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')));
    await expect(client(await listening(cut)).post('/', {}, Buffer.from('x'))).rejects.toThrow('aborted');
  }, 120_000);

  it('fails a request the server never answers with the client\'s timeout error, and a refused connection with its socket error', async () => {
    const silent = createTcpServer((socket) => socket.resume());
    await expect(client(await listening(silent), { timeoutMs: 300 }).post('/', {}, Buffer.from('x'))).rejects.toThrow('Timeout error.');
    await expect(client(9).post('/', {}, Buffer.from('x'))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 120_000);
});
