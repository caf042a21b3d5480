import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { sql } from '../../services/platform/store/clickhouse/sql.ts';
import { parseProcessingName, processingName } from '../../services/ingest/sftp/names.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { addDropFolder, INBOUND_TEST_ENV, seededOrgId } from '../support/inbound.ts';
import { createSftpAccount, namesIn, type SftpAccount } from '../support/sftp.ts';
import { servers } from '../support/servers.ts';
import { readResultFile, uploadRows } from './uploads-scenarios.ts';

/**
 * Exactly once across crashes: the SFTP ingest runs as its own process
 * (`npm run service -- sftp`) on the distributed deployment and is killed with SIGKILL
 * (1) after it claimed a file and before the job exists, (2) after the job exists and before the
 * result file is written. A new process finishes the work: one job per file, one result file.
 */
describe('SFTP ingest killed with SIGKILL (distributed deployment)', () => {
  let d: DistributedDeployment;
  let account: SftpAccount;
  let customer: SftpClient;
  let orgId: string;
  let folderId: string;
  let conn: ClickHouseConnection;
  let dir: string;
  const ROWS = 30_000;

  beforeAll(async () => {
    account = await createSftpAccount();
    d = await startDistributed(null, { env: { ...INBOUND_TEST_ENV } });
    orgId = await seededOrgId(d.platform);
    folderId = await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, account, { locale: 'en' });
    customer = await account.customer();
    conn = createClickHouseConnection({ url: servers.clickhouseUrl, database: d.env.CLICKHOUSE_DATABASE });
    dir = await scratchDir('sftp-crash');
  }, 120_000);
  afterAll(async () => {
    await conn?.close();
    await d?.stop();
    await account?.remove();
  });

  /** Every job of the organisation, straight from the table (not through the store's lookups). */
  async function jobsOfOrg(): Promise<Array<{ id: string; filename: string }>> {
    const rows = await conn.rows<{ id: string; doc: string }>(sql`SELECT id, doc FROM ${conn.table('check_jobs')} FINAL WHERE org_id = ${orgId} ORDER BY id`);
    return rows.map((r) => ({ id: r.id, filename: (JSON.parse(r.doc) as { filename: string }).filename }));
  }

  /** The intake of the job has published its last row (RowsComplete): the job exists whole. */
  async function intakeClosed(jobId: string): Promise<boolean> {
    const [row] = await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${conn.table('check_job_intakes')} WHERE job_id = ${jobId} AND closed = 1`);
    return Number(row.n) > 0;
  }

  /**
   * `unreadable`: the file's mode is 000 on the server's disk (root, this machine) before it is
   * renamed into inbox/, so the poller can claim it (a rename needs only the folder) but not
   * download it until the test gives it back its mode: the kill then surely comes before the job
   * exists, however fast the poller and however loaded the machine.
   */
  async function dropBigFile(name: string, options: { unreadable?: boolean } = {}): Promise<{ levels: Array<number | null> }> {
    const { rows, levels } = uploadRows(ROWS);
    const [path] = await makeSpreadsheets(dir, [{ name, rows, via: 'utf8-comma' }]);
    const hidden = `/inbox/.${name}.part`;
    await customer.put(await readFile(path), hidden);
    if (options.unreadable) await chmod(join(account.localDir, hidden), 0o000);
    await customer.rename(hidden, `/inbox/${name}`);
    return { levels };
  }

  /** Lists inbox/ until the file shows its processing name: the claim. */
  async function waitForClaim(name: string): Promise<string> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      for (const seen of await namesIn(customer, '/inbox')) {
        const parsed = parseProcessingName(seen);
        if (parsed?.original === name) return parsed.claimId;
      }
      if (Date.now() > deadline) throw new Error(`${name} was not claimed within 60 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function kill(p: ServiceProcess): Promise<void> {
    p.child.kill('SIGKILL');
    await p.exited;
  }

  async function waitForResult(name: string): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (!(await namesIn(customer, '/outbox')).includes(name)) {
      if (Date.now() > deadline) throw new Error(`no ${name} in outbox/ within 120 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function expectOneResult(name: string, resultName: string, levels: Array<number | null>): Promise<void> {
    await waitForResult(resultName);
    const back = await readResultFile((await customer.get(`/outbox/${resultName}`)) as Buffer, { encoding: 'utf-8', bom: false, delimiter: ',' });
    expect(back).toHaveLength(ROWS + 1);
    expect(back.slice(1).map((r) => (r[5] === '' ? null : Number(r[5])))).toEqual(levels);
    expect((await jobsOfOrg()).filter((j) => j.filename === name)).toHaveLength(1);
    // One result and its summary of counts, however often the delivery was retried.
    expect((await namesIn(customer, '/outbox')).filter((n) => n.startsWith(name.replace(/\.csv$/, '')))).toEqual([resultName, resultName.replace(/\.csv$/, '.txt')]);
    expect(await namesIn(customer, '/inbox')).toEqual([]);
    expect(await namesIn(customer, '/archive')).toContain(name);
  }

  it('killed after the claim, before the job exists: one job, one result', async () => {
    const sftp = await d.spawnService('sftp');
    const { levels } = await dropBigFile('first.csv', { unreadable: true });
    const claimId = await waitForClaim('first.csv');
    await kill(sftp);
    expect(await d.platform.jobs.getJobById(claimId), 'the kill came before the job existed').toBeNull();
    await chmod(join(account.localDir, 'inbox', processingName('first.csv', claimId)), 0o644);

    await d.spawnService('sftp');
    await expectOneResult('first.csv', 'first.result.csv', levels);
    expect((await jobsOfOrg()).find((j) => j.filename === 'first.csv')?.id).toBe(claimId);
  }, 240_000);

  it('killed after the job exists, before the result is written: one job, one result', async () => {
    const running = d.processes.filter((p) => p.name === 'sftp' && p.child.exitCode === null && p.child.signalCode === null);
    const { levels } = await dropBigFile('second.csv');
    const claimId = await waitForClaim('second.csv');
    const deadline = Date.now() + 60_000;
    while (!(await d.platform.jobs.getJobById(claimId)) || !(await intakeClosed(claimId))) {
      if (Date.now() > deadline) throw new Error('the job was not created within 60 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const p of running) await kill(p);
    expect((await namesIn(customer, '/outbox')).includes('second.result.csv'), 'the kill came before the result').toBe(false);

    await d.spawnService('sftp');
    await expectOneResult('second.csv', 'second.result.csv', levels);
    // Both files, one job each, one claim each.
    expect((await jobsOfOrg()).map((j) => j.filename).sort()).toEqual(['first.csv', 'second.csv']);
    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.source_ref === folderId);
    expect(claims.map((c) => c.state)).toEqual(['delivered', 'delivered']);
  }, 240_000);
});
