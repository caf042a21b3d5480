/**
 * The API process of test/bench/api-intake.bench.ts and uploads.bench.ts, run as a child so that
 * its RSS is its own: an embedded database file (accounts, jobs, event log) in a temp directory,
 * one organisation with a test key, check jobs (JSON and file uploads) wired as in `npm start`.
 * No matcher: jobs are measured up to the 202. Prints one
 * JSON line `{port, key}` when listening.
 */
import { join } from 'node:path';
import { pipelineTopics } from '../../infra/topics.ts';
import { issueApiKey } from '../../services/admin/keys.ts';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { buildApp } from '../../services/api/app.ts';
import { createActiveListIndex } from '../../services/registers/lists/active-index.ts';
import { createPipelineEvents } from '../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../services/platform/schema-registry/static.ts';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { createEmbeddedIdempotencyStore } from '../../services/platform/store/embedded/idempotency.ts';
import { createEmbeddedKeyRing } from '../../services/platform/store/embedded/keyring.ts';
import { createCursorSeal } from '../../services/platform/keys/cursor-seal.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: api-intake-server.ts <work dir>');

const logger = silentLogger();
const db = openEmbeddedDatabase(join(dir, 'robinson.sqlite'));
const accounts = createEmbeddedAccountStore(db);
const lists = createEmbeddedListStore(db);
const jobs = createEmbeddedJobStore(db);
const eventLog = createEmbeddedEventLog({ db, logger });
await eventLog.createTopics(pipelineTopics());
const events = createPipelineEvents({ log: eventLog, registry: createStaticSchemaRegistry() });

const org = await createOrganisation(accounts, { name: 'bench', api_agreement: true });
const { key } = await issueApiKey(accounts, org.id, 'test');

const app = buildApp({
  config: { RATE_LIMIT_PER_SECOND: 1000, RATE_LIMIT_BURST: 1000 },
  logger,
  accounts,
  lists,
  activeIndex: createActiveListIndex({ listStore: lists, logger }),
  events,
  idempotency: createEmbeddedIdempotencyStore(db),
  checkJobs: { jobs, events, spoolDir: join(dir, 'spool'), draftDir: join(dir, 'uploads'), cursors: createCursorSeal({ keyring: createEmbeddedKeyRing(db) }) },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no port');
process.stdout.write(`${JSON.stringify({ port: address.port, key })}\n`);
