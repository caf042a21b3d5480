import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DirectoryEntry } from '../../services/domain/index.ts';

/**
 * A TEST DOUBLE of a phone directory provider (no real provider can run here): plain HTTP on
 * 127.0.0.1 speaking the interface http-directory.ts assumes. `GET /numbers/{E.164}` with the
 * right bearer key answers 200 with the entry or 404; a wrong key 401; numbers in `failing` 500.
 * Numbers in `held` get no answer until `release()` (then as above): a job that looks one up
 * stays unfinished for as long as a test needs it to. Records every request path so tests can see
 * what was asked (a held lookup is recorded when it arrives: the signal that the job waits).
 */
export interface FakeDirectory {
  url: string;
  requests: string[];
  failing: Set<string>;
  held: Set<string>;
  /** Answers the held lookups (and those to come) as the directory would now. */
  release(): void;
  close(): Promise<void>;
}

export async function startFakeDirectory(key: string, entries: DirectoryEntry[]): Promise<FakeDirectory> {
  const byNumber = new Map(entries.map((e) => [e.number, e]));
  const requests: string[] = [];
  const failing = new Set<string>();
  const held = new Set<string>();
  const parked: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const match = /^\/numbers\/([^/?]+)$/.exec(request.url ?? '');
    if (request.headers.authorization !== `Bearer ${key}`) return void response.writeHead(401).end();
    if (!match || request.method !== 'GET') return void response.writeHead(404).end();
    const number = decodeURIComponent(match[1]);
    if (held.has(number)) return void parked.push(() => answer(number, response));
    answer(number, response);
  });
  function answer(number: string, response: ServerResponse): void {
    if (failing.has(number)) return void response.writeHead(500).end();
    const entry = byNumber.get(number);
    if (!entry) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown"}');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entry));
  }
  // Listening is the server's own readiness signal.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failing,
    held,
    release() {
      held.clear();
      for (const answerParked of parked.splice(0)) answerParked();
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
