import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runConnectorCommand } from '../../../services/admin/connectors.ts';
import { AdminInputError } from '../../../services/admin/organisations.ts';
import { filenameOf } from '../../../services/ingest/connector/pull.ts';
import { PullError, pullToFile } from '../../../services/ingest/connector/https-get.ts';
import { slotJobId, slotOf, slotStartMs } from '../../../services/ingest/connector/schedule.ts';
import { createSecretBox } from '../../../services/ingest/inbound/secrets.ts';
import { createEmbeddedAccountStore } from '../../../services/platform/store/embedded/accounts.ts';
import { createEmbeddedConnectorStore } from '../../../services/platform/store/embedded/connectors.ts';
import { createOrganisation } from '../../../services/admin/organisations.ts';

describe('connector schedule', () => {
  it('cuts time into epoch-aligned slots of the interval', () => {
    expect(slotOf(0, 60)).toBe(0);
    expect(slotOf(59_999, 60)).toBe(0);
    expect(slotOf(60_000, 60)).toBe(1);
    expect(slotStartMs(slotOf(1_700_000_123_456, 3600), 3600)).toBe(1_699_999_200_000);
  });

  it('derives one job id per (connector, slot): stable, distinct, a UUID the API accepts', () => {
    const a = randomUUID();
    const b = randomUUID();
    expect(slotJobId(a, 7)).toBe(slotJobId(a, 7));
    expect(new Set([slotJobId(a, 7), slotJobId(a, 8), slotJobId(b, 7)]).size).toBe(3);
    expect(z.uuid().safeParse(slotJobId(a, 7)).success).toBe(true);
    expect(slotJobId(a, 7)[14]).toBe('8');
  });

  it('names a job after the URL path, never its query (a token may hide there)', () => {
    expect(filenameOf('https://crm.example.dk/exports/kunder%20uge%2012.csv?token=abc')).toBe('kunder uge 12.csv');
    expect(filenameOf('https://crm.example.dk/?token=abc')).toBeNull();
  });
});

describe('pullToFile applies the callback address rules before connecting', () => {
  const dir = mkdtempSync(join(tmpdir(), 'connector-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const options = { headers: {}, allowHosts: [], timeoutMs: 1000, maxBytes: 1000 };

  it.each([
    ['http://crm.example.dk/x.csv', 'url_refused:not_https'],
    ['https://user:pw@crm.example.dk/x.csv', 'url_refused:credentials_in_url'],
    ['https://127.0.0.1:9/x.csv', 'url_refused:blocked_address'],
    ['https://10.1.2.3/x.csv', 'url_refused:blocked_address'],
    ['https://169.254.169.254/latest/meta-data', 'url_refused:blocked_address'],
  ])('%s → %s', async (url, code) => {
    const error = await pullToFile(url, join(dir, 'x'), options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PullError);
    expect((error as PullError).code).toBe(code);
  });

  it('a host that resolves inwards is refused too (every answer is checked)', async () => {
    const lookup = async () => [{ address: '93.184.216.34', family: 4 as const }, { address: '192.168.1.5', family: 4 as const }];
    const error = await pullToFile('https://crm.example.dk/x.csv', join(dir, 'x'), { ...options, lookup }).catch((e: unknown) => e);
    expect((error as PullError).code).toBe('url_refused:blocked_address');
  });
});

describe('connectors add (admin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'connector-admin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const db = new DatabaseSync(':memory:');
  const accounts = createEmbeddedAccountStore(db);
  const connectors = createEmbeddedConnectorStore(db);
  const secrets = createSecretBox(randomBytes(32));
  const deps = { accounts, connectors, secrets: () => secrets, allowHosts: ['127.0.0.1'], minIntervalSeconds: 300 };
  const now = new Date('2026-03-01T00:00:00.000Z');
  const authFile = (text: string) => {
    const path = join(dir, randomUUID());
    writeFileSync(path, text);
    return path;
  };

  it('stores the auth header sealed (opens only with the connector id) and never shows it', async () => {
    const org = await createOrganisation(accounts, { name: 'Acme' });
    const lines = await runConnectorCommand(deps, 'connectors add', [], {
      org: org.id, url: 'https://127.0.0.1:8443/export.csv?token=xyz', every: '3600', 'auth-header-file': authFile('Authorization: Bearer s3cret\n'), json: true,
    }, now);
    const shown = JSON.parse((lines as string[])[0]) as { id: string };
    expect(JSON.stringify(shown)).not.toMatch(/s3cret|xyz/);
    const stored = await connectors.getConnector(shown.id);
    expect(stored).toMatchObject({ auth_header_name: 'Authorization', interval_seconds: 3600, target: { kind: 'job' } });
    expect(stored?.auth_header_sealed).not.toContain('s3cret');
    expect(secrets.open(stored?.auth_header_sealed as string, shown.id)).toBe('Bearer s3cret');
    expect(() => secrets.open(stored?.auth_header_sealed as string, randomUUID())).toThrow();
    const listed = await runConnectorCommand(deps, 'connectors list', [], {}, now);
    expect(listed?.join('\n')).toMatch(/not run yet/);
    expect(listed?.join('\n')).not.toMatch(/s3cret|xyz/);
  });

  it.each([
    [{ url: 'http://127.0.0.1/x.csv' }, /must be https/],
    [{ url: 'https://10.0.0.8/x.csv' }, /private/],
    [{ every: '60' }, /at least 300/],
    [{ 'auth-header-file': 'CRLF' }, /exactly one line/],
    [{ options: '{"stop_level": 9}' }, /--options must be JSON/],
  ])('refuses %o with a clear message and stores nothing', async (bad, message) => {
    const org = await createOrganisation(accounts, { name: 'Refused' });
    const flags: Record<string, string> = { org: org.id, url: 'https://127.0.0.1/x.csv', every: '3600', ...bad };
    if (flags['auth-header-file'] === 'CRLF') flags['auth-header-file'] = authFile('Authorization: a\r\nX-Evil: b\n');
    const error = await runConnectorCommand(deps, 'connectors add', [], flags, now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminInputError);
    expect((error as Error).message).toMatch(message);
    expect(await connectors.listConnectors(org.id)).toEqual([]);
  });
});
