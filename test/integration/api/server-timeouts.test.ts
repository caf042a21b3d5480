/**
 * Connections cannot be held open for free, and what Node answers by itself speaks the contract
 * (docs/api-decisions.md "Server timeouts and errors before routing"): a body trickling in is cut
 * at HTTP_REQUEST_TIMEOUT_MS, a head at HTTP_HEADERS_TIMEOUT_MS, a silent connection at
 * HTTP_IDLE_TIMEOUT_MS, an idle keep-alive one at HTTP_KEEP_ALIVE_TIMEOUT_MS; 400, 408 and 431
 * come with the contract's error body and a Request-Id. Real port on loopback, raw sockets; each
 * wait ends on the server's own signal (its answer, or the socket closing) with a deadline.
 */
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { idleTimeoutSparesAnswering } from '../../../services/api/idle-timeout.ts';
import { build } from './helper.ts';

const TIMEOUTS = { HTTP_REQUEST_TIMEOUT_MS: 3000, HTTP_HEADERS_TIMEOUT_MS: 1500, HTTP_IDLE_TIMEOUT_MS: 2000, HTTP_KEEP_ALIVE_TIMEOUT_MS: 1000 };

async function listening(config: Partial<typeof TIMEOUTS> = TIMEOUTS) {
  const built = await build({ config });
  const address = await built.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...built, port: Number(new URL(address).port) };
}

/** A raw connection: what the server sent and when it closed (the server's signal). */
function rawConnection(port: number) {
  const socket: Socket = connect({ port, host: '127.0.0.1' });
  let received = '';
  socket.on('data', (d: Buffer) => { received += d.toString('utf8'); });
  socket.on('error', () => undefined);
  const opened = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  return { socket, closed, received: () => received };
}

/** Waits for the close, failing after `deadlineMs` (the server never cut the connection). */
async function closedWithin(conn: ReturnType<typeof rawConnection>, deadlineMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`still open after ${deadlineMs} ms`)), deadlineMs); });
  try {
    return await Promise.race([conn.closed, deadline]);
  } finally {
    clearTimeout(timer);
    conn.socket.destroy();
  }
}

function contractAnswer(raw: string) {
  const [head, body] = raw.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  const requestId = /\r\nrequest-id: ([^\r\n]+)/i.exec(head)?.[1];
  return { status, requestId, body: JSON.parse(body) as { error: { code: string; message: string; details: { reason: string }; request_id: string } } };
}

describe('server timeouts, each set from config, and Node-level errors in the contract shape', () => {
  it('a body trickling in a byte at a time is answered 408 at the request timeout and closed', async () => {
    const { port, orgA } = await listening();
    const conn = rawConnection(port);
    conn.socket.write(`POST /v2/checks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${orgA.testKey}\r\nAccept-Language: en\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"people":[`);
    const trickle = setInterval(() => conn.socket.writable && conn.socket.write(' '), 200);
    try {
      const ms = await closedWithin(conn, 8000);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.HTTP_REQUEST_TIMEOUT_MS - 100);
    } finally {
      clearInterval(trickle);
    }
    // Either Node's 408 (when the route had not answered yet) or nothing more: never a 5xx.
    if (conn.received().startsWith('HTTP/1.1 408')) {
      const answer = contractAnswer(conn.received());
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', details: { reason: 'request_timeout' } });
      expect(answer.body.error.request_id).toBe(answer.requestId);
    } else {
      expect(conn.received()).not.toMatch(/^HTTP\/1\.1 5/);
    }
  }, 20_000);

  it('a head that never ends is 408 with the contract body and a Request-Id at the headers timeout', async () => {
    // Node notices a late head on its connection check (every second here), so at 1.5-2.5 s; the
    // idle timeout is set far beyond it, or a silent close at 2 s could come first (it did on a
    // loaded machine).
    const { port } = await listening({ ...TIMEOUTS, HTTP_IDLE_TIMEOUT_MS: 15_000 });
    const conn = rawConnection(port);
    conn.socket.write('GET /v2/check-jobs HTTP/1.1\r\nHost: x\r\nAccept-Language: en\r\n');
    const ms = await closedWithin(conn, 12_000);
    expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.HTTP_HEADERS_TIMEOUT_MS - 100);
    const answer = contractAnswer(conn.received());
    expect(answer.status).toBe(408);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', details: { reason: 'request_timeout' } });
    expect(answer.body.error.request_id).toBe(answer.requestId);
  }, 20_000);

  it('a silent connection is closed at the idle timeout; an idle keep-alive one at the keep-alive timeout', async () => {
    const { port, orgA } = await listening();
    const silent = rawConnection(port);
    expect(await closedWithin(silent, 6000)).toBeGreaterThanOrEqual(Math.min(TIMEOUTS.HTTP_IDLE_TIMEOUT_MS, TIMEOUTS.HTTP_HEADERS_TIMEOUT_MS) - 100);

    const kept = rawConnection(port);
    kept.socket.write(`GET /v2/check-jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${orgA.testKey}\r\n\r\n`);
    const ms = await closedWithin(kept, 6000);
    expect(kept.received()).toMatch(/^HTTP\/1\.1 (200|404)/);
    expect(ms).toBeLessThan(TIMEOUTS.HTTP_IDLE_TIMEOUT_MS + 1500);
  }, 20_000);

  it('a request received whole is answered however long its route takes: the idle timeout cuts a silent client, not a slow answer', async () => {
    // The API's server spares answering connections (buildApp wires it; fastify routes cannot be
    // added to the booted app, so the slow route is a plain handler on a server set up the same way).
    const { app } = await build({ config: TIMEOUTS });
    expect(app.server.listenerCount('timeout')).toBe(1);
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => { arrived = resolve; });
    const server = createServer((_request, response) => {
      arrived();
      void released.then(() => response.end('answered'));
    });
    server.setTimeout(TIMEOUTS.HTTP_IDLE_TIMEOUT_MS);
    idleTimeoutSparesAnswering(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const slow = rawConnection(port);
      slow.socket.write('GET /slow-answer HTTP/1.1\r\nHost: x\r\n\r\n');
      await requestArrived;
      // Opened after the server read the slow request: once the server closed this one for
      // silence, the slow connection's idle timeout has come too.
      const silent = rawConnection(port);
      expect(await closedWithin(silent, 10_000)).toBeGreaterThanOrEqual(TIMEOUTS.HTTP_IDLE_TIMEOUT_MS - 100);
      release();
      const answered = await Promise.race([
        new Promise<string>((resolve) => slow.socket.on('data', () => { if (slow.received().includes('answered')) resolve(slow.received()); })),
        slow.closed.then(() => `closed with: ${slow.received()}`),
      ]);
      slow.socket.destroy();
      expect(answered).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      server.close();
    }
  }, 30_000);

  it('a head over 64 KiB is 431 and a request line that does not parse is 400, both in the contract shape (da by default)', async () => {
    const { port } = await listening();
    const big = rawConnection(port);
    big.socket.write(`GET /v2/check-jobs HTTP/1.1\r\nHost: x\r\nAccept-Language: en\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`);
    await closedWithin(big, 6000);
    const tooLarge = contractAnswer(big.received());
    expect(tooLarge.status).toBe(431);
    expect(tooLarge.body.error).toMatchObject({ code: 'invalid_request', details: { reason: 'headers_too_large' } });
    expect(tooLarge.body.error.request_id).toBe(tooLarge.requestId);

    const garbage = rawConnection(port);
    garbage.socket.write('NOT HTTP AT ALL\r\n\r\n');
    await closedWithin(garbage, 6000);
    const bad = contractAnswer(garbage.received());
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', message: 'Forespørgslen kunne ikke læses.', details: { reason: 'bad_request' } });
    expect(bad.body.error.request_id).toBe(bad.requestId);
  }, 20_000);
});
