import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLogDatabasePath, resultsDatabasePath } from '../../services/platform/store/embedded/database.ts';
import { decoderWithRemainingKeys, scanEmbeddedLog } from '../support/canary-scan.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { startInboundEmbedded, type InboundEmbedded } from '../support/inbound.ts';
import { filesHolding, inboundCanaryScenario } from './inbound-canary-scenario.ts';

const DAY_MS = 86_400_000;

/**
 * The inbound canary (inbound-canary-scenario.ts) on the embedded default: the channels run in
 * this process on one clock with the projection and the event log; time passes by moving that
 * clock past delete_after, so the jobs are purged by the projection's own retention sweep, the
 * folders and the mailbox emptied by the SFTP and email processes' sweeps (every second here), and
 * the rows and results on the log expire by the log's own retention. Scanned besides the
 * scenario's places: the bytes of the database files with their WALs and the messages of the
 * embedded event log (raw, and decoded with the data keys the store still holds).
 */
describe('canary: a name dropped, emailed and pulled by a connector is gone everywhere after delete_after, by the real retention (embedded)', () => {
  let d: InboundEmbedded;
  let logFile: string;
  const cleanups: Array<() => Promise<unknown>> = [];
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);

  beforeAll(async () => {
    d = await startInboundEmbedded({ RETENTION_SWEEP_SECONDS: '1' }, clock);
    logFile = join(await scratchDir('canary-logs'), 'inbound.log');
  }, 60_000);
  afterAll(async () => {
    await d?.stop();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('is found before, and nowhere after delete_after', async () => {
    const logger = pino({ level: 'debug' }, pino.destination({ dest: logFile, sync: true }));
    const database = d.platform.databasePath;
    const decoder = decoderWithRemainingKeys(d.platform);
    await inboundCanaryScenario({
      platform: d.platform, orgId: d.orgId, dataDir: d.dataDir,
      async startChannel(name, env, server) {
        await d.startInbound(name, env, { clock, logger, connectorCa: server.cert });
      },
      async scan(canary) {
        return [
          ...(await databaseFilesHolding(database, canary)),
          ...(await scanEmbeddedLog(canary, d.platform.eventLogPath!, decoder)),
          ...(await filesHolding(logFile, canary)),
        ];
      },
      async passRetention() {
        offsetMs = 92 * DAY_MS;
      },
    }, cleanups);
    expect((await readFile(logFile, 'utf8')).length, 'the services did log').toBeGreaterThan(0);
  }, 240_000);
});

/** The database files (main, results, event log) and their WALs, byte by byte (deleted rows must not linger in free space). */
async function databaseFilesHolding(database: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const dir = dirname(database);
  const files = [database, resultsDatabasePath(dir), eventLogDatabasePath(dir)];
  for (const path of files.flatMap((f) => [f, `${f}-wal`])) found.push(...(await filesHolding(path, needle)));
  return found;
}
