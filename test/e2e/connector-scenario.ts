import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { createSecretBox } from '../../services/ingest/inbound/secrets.ts';
import { slotJobId } from '../../services/ingest/connector/schedule.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import type { ConnectorStatus } from '../../services/platform/store/connectors-port.ts';
import type { JobRecord } from '../../services/platform/store/jobs-port.ts';
import type { ExportServer } from '../support/connector-server.ts';
import { uploadRows } from './uploads-scenarios.ts';

/**
 * Connectors end to end (docs/decisions.md §16, docs/connectors.md), shared by both deployments: the
 * operator adds a connector with the admin command (auth header from a file, stored sealed), the
 * connector service pulls the customer's HTTPS export (self-signed, allow-listed loopback) every
 * 2 seconds, each slot making one `source: connector` job checked like any other; with the server
 * down the pull's error shows in `connectors list`, and the next slot after it comes back succeeds.
 */
export const CONNECTOR_AUTH = 'Bearer connector-test-token-7f3a';
export const CONNECTOR_INTERVAL_SECONDS = 2;

export async function addConnector(
  platform: Platform, secretKey: string, orgId: string, url: string, extra: Record<string, string> = {}, authorization = CONNECTOR_AUTH,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'robinson-admin-connector-'));
  try {
    await writeFile(join(dir, 'auth'), `Authorization: ${authorization}\n`, { mode: 0o600 });
    const lines = await runAdminCommand({
      accounts: platform.accounts, lists: platform.lists, keys: platform.keys, logger: silentLogger(),
      connectors: {
        connectors: platform.connectors, secrets: () => createSecretBox(Buffer.from(secretKey, 'base64')),
        allowHosts: ['127.0.0.1'], minIntervalSeconds: 1, monitors: platform.monitors,
      },
    }, 'connectors', 'add', [], {
      org: orgId, url, every: String(CONNECTOR_INTERVAL_SECONDS), 'auth-header-file': join(dir, 'auth'), locale: 'en', json: true, ...extra,
    });
    return (JSON.parse(lines[0]) as { id: string }).id;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `connectors list --json` as the operator sees it. */
export async function listConnectors(platform: Platform): Promise<Array<Record<string, unknown>>> {
  const lines = await runAdminCommand({
    accounts: platform.accounts, lists: platform.lists, keys: platform.keys, logger: silentLogger(),
    connectors: { connectors: platform.connectors, secrets: () => { throw new Error('not needed'); }, allowHosts: [], minIntervalSeconds: 1 },
  }, 'connectors', 'list', [], { json: true });
  return JSON.parse(lines[0]) as Array<Record<string, unknown>>;
}

/** Waits (on the status the connector service records) until `until` holds; 60 s at most. */
export async function waitForStatus(platform: Platform, id: string, until: (s: ConnectorStatus) => boolean, what: string): Promise<ConnectorStatus> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await platform.connectors.getStatus(id);
    if (status && until(status)) return status;
    if (Date.now() > deadline) throw new Error(`connector status never reached "${what}": ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function waitForJobDone(platform: Platform, jobId: string): Promise<JobRecord> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await platform.jobs.getJobById(jobId);
    if (job && ['done', 'failed'].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is ${job?.status ?? 'missing'}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Rows of the export as a CRM writes them (semicolons, UTF-8) and the level each must get. */
export function exportCsv(count: number): { csv: string; levels: Array<number | null> } {
  const { rows, levels } = uploadRows(count);
  return { csv: `${rows.map((r) => r.map((c) => c ?? '').join(';')).join('\r\n')}\r\n`, levels };
}

export async function expectJobLevels(platform: Platform, job: JobRecord, levels: Array<number | null>): Promise<void> {
  expect(job).toMatchObject({ source: 'connector', status: 'done', row_count: levels.length });
  const page = await platform.jobs.readResults(job.id, { limit: 1000 });
  expect(page.rows.map((r) => r.result.match.level)).toEqual(levels);
}

export { slotJobId };

/** The pulls of a server down, then up again: the error is visible, the next slot succeeds. */
export async function downThenUp(platform: Platform, server: ExportServer, connectorId: string, levels: Array<number | null>): Promise<void> {
  const before = await waitForStatus(platform, connectorId, (s) => s.failures === 0 && s.last_job_id !== null, 'a first job');
  await server.down();
  const failing = await waitForStatus(platform, connectorId, (s) => s.failures > 0 && (s.last_slot ?? 0) > (before.last_slot ?? 0), 'a failed pull');
  expect(failing.last_error).toBe('connect_error:ECONNREFUSED');
  const shown = (await listConnectors(platform)).find((c) => c.id === connectorId);
  // The last good job stays on record beside the error (a slot may have succeeded after `before`).
  expect(failing.last_job_id).not.toBeNull();
  // Another slot may fail while the server is still down (a busy machine): the error shown is the
  // latest failure's, never older than the one waited for.
  expect(shown).toMatchObject({ last_error: 'connect_error:ECONNREFUSED', last_job_id: failing.last_job_id });
  expectNotBefore(shown?.last_error_at, failing.last_error_at);
  expect(JSON.stringify(shown)).not.toContain(CONNECTOR_AUTH.split(' ')[1]);

  await server.up();
  const recovered = await waitForStatus(platform, connectorId, (s) => s.failures === 0 && (s.last_slot ?? 0) > (failing.last_slot ?? 0), 'a success after the failure');
  expect(recovered.last_job_id).toBe(slotJobId(connectorId, recovered.last_slot as number));
  expect(recovered.last_job_id).not.toBe(failing.last_job_id);
  // The error stays on record beside the success, so the operator sees what happened.
  expect(recovered).toMatchObject({ last_error: 'connect_error:ECONNREFUSED' });
  expectNotBefore(recovered.last_error_at, failing.last_error_at);
  await expectJobLevels(platform, await waitForJobDone(platform, recovered.last_job_id as string), levels);
}

/** `at` is a time no earlier than `earliest` (both ISO texts). */
function expectNotBefore(at: unknown, earliest: unknown): void {
  expect(typeof at).toBe('string');
  expect(typeof earliest).toBe('string');
  expect(Date.parse(at as string)).toBeGreaterThanOrEqual(Date.parse(earliest as string));
}
