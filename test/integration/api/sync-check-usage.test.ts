import { describe, expect, it, onTestFinished } from 'vitest';
import { pipelineTopics } from '../../../infra/topics.ts';
import { createPipelineEvents } from '../../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { buildWithRegisters } from './companies-phones-helper.ts';
import { consumeEvents, countingLog } from './event-capture.ts';
import { bearer, LIVE_VERSION_ID } from './helper.ts';

/**
 * The billable usage of the company and phone checks (services/api/routes/sync-check.ts, shared
 * with POST /v2/checks, whose usage test is in check-jobs.test.ts): a live call publishes one
 * CheckUsage with its kind and count, a test call and an idempotent replay publish nothing.
 */
async function setup() {
  const registry = createStaticSchemaRegistry();
  let eventLog!: ReturnType<typeof countingLog>;
  const built = await buildWithRegisters({
    withDeps: (db) => {
      eventLog = countingLog(createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20 }));
      return { events: createPipelineEvents({ log: eventLog, registry }) };
    },
  });
  await eventLog.createTopics(pipelineTopics());
  const log = await consumeEvents(eventLog, registry);
  onTestFinished(async () => {
    await log.close();
    await eventLog.close();
  });
  return { ...built, log };
}

const cases = [
  { url: '/v2/company-checks', kind: 'company_check', payload: { companies: [{ cvr: '10150817' }, { cvr: '30698649' }] } },
  { url: '/v2/phone-checks', kind: 'phone_check', payload: { phones: [{ phone: '+4512345678' }, { phone: '+4587654321' }] } },
] as const;

describe('usage events of the company and phone checks', () => {
  it.each(cases)('$url: a live call publishes CheckUsage once (counts and ids only); a replay and a test call publish nothing', async ({ url, kind, payload }) => {
    const { app, withAddons, log } = await setup();
    const headers = { ...bearer(withAddons.liveKey), 'idempotency-key': `usage-${kind}` };
    const live = await app.inject({ method: 'POST', url, headers, payload });
    expect(live.statusCode, live.body).toBe(200);
    const replay = await app.inject({ method: 'POST', url, headers, payload });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(live.body);
    const test = await app.inject({ method: 'POST', url, headers: bearer(withAddons.testKey), payload });
    expect(test.statusCode, test.body).toBe(200);
    // Written after the answers, with the other events of their turn (services/api/billing/usage-writer.ts).
    await app.usageWritten();

    const usage = (await log.decoded()).filter((e) => e.type === 'CheckUsage').map((e) => e.value);
    expect(usage).toEqual([expect.objectContaining({
      org_id: withAddons.org.id, kind, count: 2, job_id: null, request_id: live.headers['request-id'],
      list_version_id: LIVE_VERSION_ID, key_id: expect.any(String),
    })]);
  });
});
