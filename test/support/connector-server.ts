/**
 * A customer's export server for connector tests: HTTPS on 127.0.0.1 with a self-signed
 * certificate made by the openssl CLI for the test run, answering each path with the body set for
 * it, only to requests carrying the expected Authorization header (401 otherwise). It can be shut
 * down ("the server is down") and started again on the same port.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ExportServer {
  /** `https://127.0.0.1:<port>/<path>`, answering `body` with `contentType`. */
  serve(path: string, body: Buffer | string, contentType: string): string;
  /**
   * The next request for `path` gets the first `bytes` of its body, then the answer stalls until
   * `release()`: `sent` resolves once those bytes are written (the client is mid-download).
   */
  hold(path: string, bytes: number): { sent: Promise<void>; release(): void };
  /** Requests seen per path, with the Authorization header they carried. */
  requests(path: string): Array<{ authorization: string | undefined; answered: number }>;
  cert: string;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS of a service process. */
  certFile: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startExportServer(expectedAuthorization: string): Promise<ExportServer> {
  const dir = mkdtempSync(join(tmpdir(), 'export-server-cert-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'pipe' });
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const key = readFileSync(join(dir, 'key.pem'), 'utf8');
  const bodies = new Map<string, { body: Buffer; contentType: string }>();
  const seen = new Map<string, Array<{ authorization: string | undefined; answered: number }>>();
  const holds = new Map<string, { bytes: number; sent: () => void; released: Promise<void> }>();
  let port = 0;
  let server: Server | null = null;

  async function up(): Promise<void> {
    const s = createServer({ key, cert }, (req, res) => {
      const path = (req.url ?? '/').slice(1);
      const answer = bodies.get(path);
      const authorized = req.headers.authorization === expectedAuthorization;
      const status = !authorized ? 401 : answer ? 200 : 404;
      (seen.get(path) ?? seen.set(path, []).get(path))?.push({ authorization: req.headers.authorization, answered: status });
      if (status !== 200 || !answer) {
        res.writeHead(status).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': answer.contentType, 'Content-Length': String(answer.body.length) });
      const held = holds.get(path);
      if (!held) {
        res.end(answer.body);
        return;
      }
      holds.delete(path);
      res.write(answer.body.subarray(0, held.bytes), () => held.sent());
      void held.released.then(() => {
        if (!res.destroyed) res.end(answer.body.subarray(held.bytes));
      });
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    port = (s.address() as AddressInfo).port;
    server = s;
  }

  async function down(): Promise<void> {
    const s = server;
    server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }

  await up();
  return {
    cert,
    certFile: join(dir, 'cert.pem'),
    serve(path, body, contentType) {
      bodies.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), contentType });
      return `https://127.0.0.1:${port}/${path}`;
    },
    hold(path, bytes) {
      let sent = () => {};
      let release = () => {};
      const sentPromise = new Promise<void>((resolve) => { sent = resolve; });
      const released = new Promise<void>((resolve) => { release = resolve; });
      holds.set(path, { bytes, sent, released });
      return { sent: sentPromise, release };
    },
    requests: (path) => [...(seen.get(path) ?? [])],
    down,
    up,
    async close() {
      await down();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
