/**
 * The callback sender against a real HTTPS receiver on loopback, with a self-signed certificate
 * made for the test by the openssl CLI, trusted through the sender's `ca` and allow-listed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../services/platform/logger.ts';
import { verifyCallbackSignature } from '../../services/platform/webhook-signature.ts';
import {
  createCallbackSender, type CallbackClock, type CallbackRequest, type DeliveryState,
} from '../../services/projection/callbacks/index.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

type Behaviour = (res: ServerResponse) => void;
const answer = (status: number): Behaviour => (res) => res.writeHead(status).end('ok');
const hang: Behaviour = () => {
  /* never answers */
};

let cert: string;
let key: string;
let certDir: string;

beforeAll(() => {
  certDir = mkdtempSync(join(tmpdir(), 'callbacks-cert-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,DNS:receiver.callbacks.invalid,IP:127.0.0.1',
    '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem'),
  ], { stdio: 'pipe' });
  cert = readFileSync(join(certDir, 'cert.pem'), 'utf8');
  key = readFileSync(join(certDir, 'key.pem'), 'utf8');
});

afterAll(() => rmSync(certDir, { recursive: true, force: true }));

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver that answers the n-th request with behaviours[n] (the last one repeats). */
async function receiver(behaviours: Behaviour[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      behaviours[Math.min(received.length - 1, behaviours.length - 1)](res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/robinson?src=test`, received };
}

/** The real clock, with every sleep written down. */
/**
 * A clock on virtual time: an attempt takes no time on it and a sleep moves it on, so the waits it
 * records are the schedule itself, however long a real HTTPS attempt takes on a busy machine.
 */
function virtualClock(): CallbackClock & { sleeps: number[] } {
  const sleeps: number[] = [];
  let now = Date.now();
  return {
    sleeps,
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const apiKey = 'rl_live_' + 'K'.repeat(40);
const secret = createHash('sha256').update(apiKey).digest('hex');

function request(url: string): CallbackRequest {
  const body = JSON.stringify({ id: randomUUID(), status: 'done', row_count: 2, note: 'æøå' });
  return { url, event: 'check_job.completed', deliveryId: randomUUID(), body, secret };
}

function sender(options: { retryDelaysMs?: number[]; timeoutMs?: number; clock?: CallbackClock; allow?: boolean; ca?: boolean } = {}) {
  return createCallbackSender({
    logger: silentLogger(),
    clock: options.clock,
    retryDelaysMs: options.retryDelaysMs ?? [50, 100, 150],
    timeoutMs: options.timeoutMs ?? 2_000,
    allowHosts: options.allow === false ? [] : ['127.0.0.1', 'localhost'],
    ca: options.ca === false ? undefined : cert,
  });
}

describe('callback sender over real HTTPS', () => {
  it('delivers a request the receiver verifies with the contract formula', async () => {
    const { url, received } = await receiver([answer(204)]);
    const req = request(url);
    const outcome = await sender().deliver(req);
    expect(outcome).toMatchObject({ state: 'delivered', attempts: 1, last_status: 204, last_error: null, delivery_id: req.deliveryId });
    expect(outcome.delivered_at).not.toBeNull();

    const [got] = received;
    expect(got.body).toBe(req.body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['service-event']).toBe('check_job.completed');
    expect(got.headers['service-delivery']).toBe(req.deliveryId);
    const header = String(got.headers['service-signature']);
    expect(verifyCallbackSignature(header, got.body, secret, 300).ok).toBe(true);
    const asReceived = { deliveryId: String(got.headers['service-delivery']), event: String(got.headers['service-event']) };
    expect(verifyCallbackSignature(header, got.body, secret, 300, undefined, asReceived).ok).toBe(true);
    // The same checks written out from docs/contract.md Events rule 2 (v1) and docs/callbacks.md (v2),
    // independent of our helper.
    const match = /^t=(\d+),v1=([0-9a-f]{64}),v2=([0-9a-f]{64})$/.exec(header);
    expect(match).not.toBeNull();
    const keyHash = createHash('sha256').update(apiKey).digest('hex');
    expect(createHmac('sha256', keyHash).update(`${match![1]}.${got.body}`).digest('hex')).toBe(match![2]);
    expect(createHmac('sha256', keyHash).update(`${match![1]}.${req.deliveryId}.check_job.completed.${got.body}`).digest('hex')).toBe(match![3]);
  });

  it('retries 500, 500 on the schedule and ends delivered after 3 attempts with one delivery id', async () => {
    const { url, received } = await receiver([answer(500), answer(500), answer(200)]);
    const clock = virtualClock();
    const states: DeliveryState[] = [];
    const outcome = await sender({ clock }).deliver(request(url), { onAttempt: (state) => void states.push(state) });
    expect(outcome).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200 });
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers['service-delivery'])).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    expect(states.map((s) => [s.state, s.attempts, s.last_status])).toEqual([
      ['pending', 1, 500],
      ['pending', 2, 500],
      ['delivered', 3, 200],
    ]);
    // Two waits, each its delay after the previous attempt began (the schedule 50, 100, 150 ms).
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it('ends failed after 4 attempts when the receiver never answers 2xx (3xx is not followed)', async () => {
    const { url, received } = await receiver([answer(503), answer(302), answer(400), answer(500)]);
    const outcome = await sender().deliver(request(url));
    expect(outcome).toMatchObject({ state: 'failed', attempts: 4, last_status: 500, last_error: 'http_status', next_attempt_at: null });
    expect(received).toHaveLength(4);
  });

  it('counts a receiver that hangs past the timeout as a failed attempt', async () => {
    const { url, received } = await receiver([hang, answer(200)]);
    const attempt = await sender({ timeoutMs: 300 }).attemptDelivery(request(url));
    expect(attempt).toMatchObject({ ok: false, statusCode: null, error: 'timeout', retriable: true });

    const { url: url2, received: received2 } = await receiver([hang, hang, hang, hang]);
    const outcome = await sender({ timeoutMs: 200, retryDelaysMs: [10, 10, 10] }).deliver(request(url2));
    expect(outcome).toMatchObject({ state: 'failed', attempts: 4, last_status: null, last_error: 'timeout' });
    expect(received2).toHaveLength(4);
    expect(received).toHaveLength(1);
  });

  it('takes an answer that came while the process was busy past the timeout, and sends nothing again', async () => {
    // The receiver is a process of its own (this test blocks its own event loop): it says when a
    // request arrived and answers 200 300 ms later, while this process is still busy.
    const child = spawn(process.execPath, ['-e', `
      const server = require('node:https').createServer({ key: process.env.KEY, cert: process.env.CERT }, (req, res) => {
        req.resume();
        req.on('end', () => { process.stdout.write('received\\n'); setTimeout(() => res.writeHead(200).end('ok'), 300); });
      });
      server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
    `], { env: { ...process.env, KEY: key, CERT: cert }, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      const said = (text: string) => new Promise<void>((resolve) => {
        const look = () => (out.includes(text) ? resolve() : child.stdout.once('data', (d: Buffer) => ((out += d.toString()), look())));
        look();
      });
      await said('port ');
      const port = /port (\d+)/.exec(out)![1];
      const states: DeliveryState[] = [];
      const delivery = sender({ timeoutMs: 1_000, retryDelaysMs: [10] }).deliver(request(`https://127.0.0.1:${port}/hook`), {
        onAttempt: (state) => void states.push(state),
      });
      await said('received');
      // Busy past the timeout; the answer arrives meanwhile and waits in the socket.
      const until = Date.now() + 1_500;
      while (Date.now() < until) { /* a long synchronous batch */ }
      const outcome = await delivery;
      expect(outcome).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200 });
      expect(out.match(/received/g)).toHaveLength(1);
      expect(states).toHaveLength(1);
    } finally {
      child.kill();
    }
  });

  it('counts a host whose DNS answer does not come within the timeout as a timeout', async () => {
    const slowDns = createCallbackSender({
      logger: silentLogger(),
      timeoutMs: 100,
      retryDelaysMs: [],
      lookup: () => new Promise(() => {}),
    });
    const outcome = await slowDns.deliver(request('https://slow-dns.callbacks.invalid/cb'));
    expect(outcome).toMatchObject({ state: 'failed', attempts: 1, last_error: 'timeout', last_status: null });
  });

  it('resumes a stored schedule after a restart instead of starting again', async () => {
    const { url, received } = await receiver([answer(500)]);
    const req = request(url);
    const stored: DeliveryState = {
      delivery_id: req.deliveryId,
      event: req.event,
      state: 'pending',
      attempts: 2,
      last_status: 500,
      last_error: 'http_status',
      last_attempt_at: new Date(Date.now() - 60_000).toISOString(),
      next_attempt_at: null,
      delivered_at: null,
    };
    const outcome = await sender().deliver(req, { state: stored });
    expect(outcome).toMatchObject({ state: 'failed', attempts: 4 });
    expect(received).toHaveLength(2);
    // A finished delivery sends nothing more.
    expect(await sender().deliver(req, { state: outcome })).toBe(outcome);
    expect(received).toHaveLength(2);
  });

  it('stops waiting when aborted and returns the pending state to store', async () => {
    const { url, received } = await receiver([answer(500)]);
    const controller = new AbortController();
    const outcome = await sender({ retryDelaysMs: [60_000, 60_000, 60_000] }).deliver(request(url), {
      signal: controller.signal,
      onAttempt: () => controller.abort(),
    });
    expect(outcome).toMatchObject({ state: 'pending', attempts: 1 });
    expect(received).toHaveLength(1);
  });

  it('connects to the checked address while checking the certificate against the host name', async () => {
    // `.invalid` never resolves in real DNS: the request can only arrive through the checked answer.
    const host = 'receiver.callbacks.invalid';
    const { url, received } = await receiver([answer(200)]);
    const port = new URL(url).port;
    const pinned = createCallbackSender({
      logger: silentLogger(),
      allowHosts: [host],
      ca: cert,
      retryDelaysMs: [],
      lookup: async (hostname) => (hostname === host ? [{ address: '127.0.0.1', family: 4 }] : []),
    });
    const outcome = await pinned.deliver(request(`https://${host}:${port}/cb`));
    expect(outcome).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(received[0].headers.host).toBe(`${host}:${port}`);
  });

  it('refuses loopback without the allow-list, sending nothing, and an untrusted certificate', async () => {
    const { url, received } = await receiver([answer(200)]);
    const outcome = await sender({ allow: false }).deliver(request(url));
    expect(outcome).toMatchObject({ state: 'failed', attempts: 1, last_error: 'url_blocked_address:loopback' });
    expect(received).toHaveLength(0);

    const untrusted = await sender({ ca: false }).attemptDelivery(request(url));
    expect(untrusted.ok).toBe(false);
    expect(untrusted.error).toMatch(/^tls_error:/);
    expect(received).toHaveLength(0);
  });
});
