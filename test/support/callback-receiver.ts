/**
 * A callback receiver for end-to-end tests: HTTPS on 127.0.0.1 with a self-signed certificate
 * made by the openssl CLI for the test run. Each path answers from its own script (e.g. 500, 500,
 * 200) and records every request with whether its signature verified by the contract's formula
 * (docs/contract.md Events rule 2): HMAC-SHA256 over `<t>.<raw body>` keyed with the hex SHA-256 of the key.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this request was answered with. */
  answered: number;
  at: number;
}

export interface CallbackReceiver {
  /** `https://127.0.0.1:<port>/<path>` answering `statuses` in turn (the last one repeats). */
  url(path: string, statuses?: number[]): string;
  received(path?: string): ReceivedCallback[];
  /** The certificate (PEM) to trust; its file for NODE_EXTRA_CA_CERTS. */
  cert: string;
  certFile: string;
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'receiver-cert-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'pipe' });
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const key = readFileSync(join(dir, 'key.pem'), 'utf8');
  const scripts = new Map<string, number[]>();
  const received: ReceivedCallback[] = [];

  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').slice(1);
      const script = scripts.get(path) ?? [200];
      const seen = received.filter((r) => r.path === path).length;
      const status = script[Math.min(seen, script.length - 1)];
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered: status, at: Date.now() });
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    cert,
    certFile: join(dir, 'cert.pem'),
    url(path, statuses = [200]) {
      scripts.set(path, statuses);
      return `https://127.0.0.1:${port}/${path}`;
    },
    received: (path) => (path === undefined ? [...received] : received.filter((r) => r.path === path)),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The checks of `Service-Signature` written out by hand: the contract's v1 over `<t>.<body>`
 * (docs/contract.md Events rule 2) and v2 over `<t>.<Service-Delivery>.<Service-Event>.<body>` as received
 * (docs/callbacks.md "Verifying the signature"); both must hold.
 */
export function signatureVerifies(headers: IncomingHttpHeaders, rawBody: string, apiKey: string): boolean {
  const header = String(headers['service-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64}),v2=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const secret = createHash('sha256').update(apiKey).digest('hex');
  const v1 = createHmac('sha256', secret).update(`${match[1]}.${rawBody}`).digest();
  const signed = `${match[1]}.${String(headers['service-delivery'] ?? '')}.${String(headers['service-event'] ?? '')}.${rawBody}`;
  const v2 = createHmac('sha256', secret).update(signed).digest();
  return timingSafeEqual(v1, Buffer.from(match[2], 'hex')) && timingSafeEqual(v2, Buffer.from(match[3], 'hex'));
}
