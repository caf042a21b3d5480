import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaCatalog } from '../../services/platform/schema-registry/catalog.ts';
import { createConfluentSchemaRegistry } from '../../services/platform/schema-registry/confluent.ts';
import { createStaticSchemaRegistry } from '../../services/platform/schema-registry/static.ts';
import { sampleEvents } from '../fixtures/events.ts';

/**
 * The Confluent adapter against a FAKE registry: no Confluent-compatible registry can be
 * installed on these machines, so a tiny loopback HTTP server speaks the part of the REST API
 * that @kafkajs/confluent-schema-registry uses (config, register, schema by id), handing out ids
 * 1, 2, 3... like a fresh registry. docker-compose runs the real one.
 */
function startFakeRegistry(): Promise<{ server: Server; url: string; requests: string[] }> {
  const schemas: string[] = []; // index + 1 = id
  const subjects = new Map<string, number[]>();
  const configs = new Map<string, string>();
  const requests: string[] = [];
  // oxlint-disable-next-line typescript/no-misused-promises -- a fake server: a failing handler fails the test through its client
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(`${req.method} ${path}`);
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/vnd.schemaregistry.v1+json' });
      res.end(JSON.stringify(value));
    };
    let m: RegExpExecArray | null;
    if ((m = /^\/config\/(.+)$/.exec(path))) {
      if (req.method === 'PUT') {
        configs.set(m[1], JSON.parse(body).compatibility);
        return reply(200, { compatibility: configs.get(m[1]) });
      }
      const level = configs.get(m[1]);
      return level ? reply(200, { compatibilityLevel: level }) : reply(404, { error_code: 40408, message: 'no config' });
    }
    if ((m = /^\/subjects\/(.+)\/versions$/.exec(path)) && req.method === 'POST') {
      const schema = JSON.stringify(JSON.parse(JSON.parse(body).schema));
      let index = schemas.indexOf(schema);
      if (index < 0) index = schemas.push(schema) - 1;
      const ids = subjects.get(m[1]) ?? [];
      if (!ids.includes(index + 1)) ids.push(index + 1);
      subjects.set(m[1], ids);
      return reply(200, { id: index + 1 });
    }
    if ((m = /^\/schemas\/ids\/(\d+)$/.exec(path))) {
      const schema = schemas[Number(m[1]) - 1];
      return schema ? reply(200, { schema }) : reply(404, { error_code: 40403, message: 'Schema not found' });
    }
    reply(404, { error_code: 404, message: `fake registry: ${req.method} ${path} not supported` });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests });
    });
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('Confluent schema registry adapter (fake registry on loopback)', () => {
  const catalog = loadSchemaCatalog();
  const staticRegistry = createStaticSchemaRegistry(catalog);
  let fake: Awaited<ReturnType<typeof startFakeRegistry>>;
  let confluent: ReturnType<typeof createConfluentSchemaRegistry>;

  beforeAll(async () => {
    fake = await startFakeRegistry();
    confluent = createConfluentSchemaRegistry({ url: fake.url, catalog });
  });
  afterAll(() => new Promise<void>((resolve) => fake.server.close(() => resolve())));

  it('registers every schema, in pinned order, with BACKWARD compatibility', async () => {
    await confluent.ready();
    const registered = fake.requests.filter((r) => r.startsWith('POST /subjects/'));
    expect(registered).toEqual(catalog.entries.map((e) => `POST /subjects/${e.subject}/versions`));
    expect(fake.requests).toContain(`PUT /config/${catalog.entries[0].subject}`);
  });

  it.each(Object.entries(sampleEvents))('encodes %s byte for byte like the static adapter', async (subject, value) => {
    const viaConfluent = await confluent.encode(subject, value);
    const viaStatic = await staticRegistry.encode(subject, value);
    expect(viaConfluent.equals(viaStatic)).toBe(true);
    expect(await confluent.decode(viaStatic)).toEqual(await staticRegistry.decode(viaConfluent));
  });

  it('resolves old versions into the latest, like the static adapter', async () => {
    const subject = 'jobs.events-dk.robinson.jobs.JobStateChanged';
    const [v1] = catalog.bySubject.get(subject)!;
    const old = { job_id: 'j', org_id: 'o', status: 'failed', error: 'input_unreadable', changed_at: '2026-02-01T09:00:00.000Z' };
    const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0, v1.id]), v1.type.toBuffer(old)]);
    const decoded = await confluent.decode(bytes);
    expect(decoded).toEqual({ subject, version: 2, value: { ...old, processed_count: 0, finished_at: null } });
  });
});
