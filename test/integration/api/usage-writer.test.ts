import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { pipelineTopics } from '../../../infra/topics.ts';
import { startAppendThread } from '../../../services/platform/log/append-thread.ts';
import { createUsageWriter } from '../../../services/api/billing/usage-writer.ts';
import { createPipelineEvents, type CheckUsageEvent, type EventAppender, type PipelineEvent } from '../../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { eventLogWakeChannel } from '../../../services/platform/open-platform.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { consumeEvents, countingLog } from './event-capture.ts';
import { bearer, build, LIVE_ENTRIES } from './helper.ts';

/**
 * The usage events of live synchronous checks, written in groups after the answers
 * (services/api/billing/usage-writer.ts, docs/privacy-and-proof.md "Billing"): on the embedded
 * event log in a database file of its own, as `npm start` has it, every answered live check is on
 * usage.events exactly once, also when the app stops with events not yet written and when a
 * publish fails.
 */
const registry = createStaticSchemaRegistry();
const people = [
  { id: 'a', name: 'Søren Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' },
  { id: 'b', name: 'Ole Robinson', address: 'Torvet 1, 4000 Roskilde' },
];

/** The embedded event log on a database file, its topics created, and a consumer of everything published through it. */
async function fileLog() {
  const dir = mkdtempSync(join(tmpdir(), 'usage-writer-'));
  const logPath = join(dir, 'event-log.sqlite');
  const db = openEmbeddedDatabase(logPath);
  const rawLog = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20, wakeChannel: eventLogWakeChannel(logPath) });
  const eventLog = countingLog(rawLog);
  await eventLog.createTopics(pipelineTopics());
  const log = await consumeEvents(eventLog, registry);
  onTestFinished(async () => {
    await log.close();
    await eventLog.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** The embedded deployment's append thread on the same file; what it appends is counted as published through the log. */
  const appendThread = async () => {
    // The fallback uncounted: the wrapper below counts every append once, wherever it went.
    const appender = await startAppendThread({ logPath, wakeChannel: eventLogWakeChannel(logPath), fallback: rawLog, logger: silentLogger() });
    onTestFinished(() => appender.close());
    const counted: EventAppender = {
      publish: async (topic, messages) => {
        await appender.publish(topic, messages);
        eventLog.published().set(topic, (eventLog.published().get(topic) ?? 0) + messages.length);
      },
    };
    return { appender, pipeline: createPipelineEvents({ log: counted, registry }) };
  };
  const usage = async () => (await log.decoded()).flatMap((e) => (e.type === 'CheckUsage' ? [e.value] : []));
  return { eventLog, pipeline: createPipelineEvents({ log: eventLog, registry }), appendThread, usage };
}

/** Pipeline events whose publishes the test watches: how many calls, and each call's events. */
function watched(pipeline: { publish(events: PipelineEvent | PipelineEvent[]): Promise<void> }) {
  const calls: PipelineEvent[][] = [];
  return {
    calls,
    publish: (events: PipelineEvent | PipelineEvent[]) => {
      calls.push(Array.isArray(events) ? events : [events]);
      return pipeline.publish(events);
    },
  };
}

function usageEvent(n: number): CheckUsageEvent {
  return { org_id: 'org-1', kind: 'person_check', count: n, job_id: null, request_id: `request-${n}`, list_version_id: null, at: '2026-11-27T12:00:00.000Z', key_id: 'key-1' };
}

describe('usage events of live synchronous checks', () => {
  it.each(['the API thread', 'the append thread of the embedded deployment'])('a burst of 40 concurrent live checks over a real port, appended by %s: exactly 40 CheckUsage events, one per answered request', async (by) => {
    const written = await fileLog();
    const { pipeline } = by === 'the API thread' ? written : await written.appendThread();
    const { usage } = written;
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES, withDeps: () => ({ usageEvents: pipeline }) });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const answers = await Promise.all(Array.from({ length: 40 }, async () => {
      const response = await fetch(`${base}/v2/checks`, {
        method: 'POST', headers: { ...bearer(orgA.liveKey), 'content-type': 'application/json' }, body: JSON.stringify({ people }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      await response.arrayBuffer();
      return response.headers.get('request-id');
    }));
    // A test key's checks are never counted.
    const test = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgA.testKey), payload: { people } });
    expect(test.statusCode).toBe(200);

    await app.usageWritten();
    const events = await usage();
    expect(events).toHaveLength(40);
    expect(new Set(events.map((e) => e.request_id))).toEqual(new Set(answers));
    expect(events.every((e) => e.org_id === orgA.org.id && e.count === people.length && e.kind === 'person_check')).toBe(true);
  });

  it('once the append thread has ended, appends go to the API thread\'s log: nothing is lost', async () => {
    const { usage, appendThread } = await fileLog();
    const { appender, pipeline } = await appendThread();
    const writer = createUsageWriter({ events: pipeline, logger: silentLogger() });
    writer.record(usageEvent(1));
    await writer.written();
    await appender.close();
    writer.record(usageEvent(2));
    await writer.close();
    expect((await usage()).map((e) => e.request_id)).toEqual(['request-1', 'request-2']);
  });

  it('events taken in one turn go out in one publish (one transaction), after the answers', async () => {
    const { pipeline, usage } = await fileLog();
    const events = watched(pipeline);
    const writer = createUsageWriter({ events, logger: silentLogger() });
    for (let n = 1; n <= 5; n++) writer.record(usageEvent(n));
    expect(events.calls).toHaveLength(0);
    await writer.written();
    expect(events.calls.map((call) => call.length)).toEqual([5]);
    writer.record(usageEvent(6));
    await writer.written();
    expect(events.calls.map((call) => call.length)).toEqual([5, 1]);
    expect((await usage()).map((e) => e.request_id)).toEqual(['request-1', 'request-2', 'request-3', 'request-4', 'request-5', 'request-6']);
    await writer.close();
  });

  it('a graceful stop writes the events whose turn never came', async () => {
    const { pipeline, usage } = await fileLog();
    const events = watched(pipeline);
    // The turn's publish is held back: only `close` can write them.
    const writer = createUsageWriter({ events, logger: silentLogger(), afterTurn: () => {} });
    for (let n = 1; n <= 3; n++) writer.record(usageEvent(n));
    expect(events.calls).toHaveLength(0);
    await writer.close();
    expect((await usage()).map((e) => e.request_id)).toEqual(['request-1', 'request-2', 'request-3']);
    expect(() => writer.record(usageEvent(4))).toThrow('closed');
  });

  it('app.close() waits for a publish in flight and writes the checks answered behind it', async () => {
    const { pipeline, usage } = await fileLog();
    let opened!: () => void;
    const gate = new Promise<void>((resolve) => (opened = resolve));
    let started!: () => void;
    const firstPublish = new Promise<void>((resolve) => (started = resolve));
    let calls = 0;
    const events = {
      publish: async (e: PipelineEvent | PipelineEvent[]) => {
        calls += 1;
        if (calls === 1) {
          started();
          await gate;
        }
        return pipeline.publish(e);
      },
    };
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES, withDeps: () => ({ events }) });
    const check = () => app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgA.liveKey), payload: { people } });
    const first = await check();
    expect(first.statusCode).toBe(200);
    await firstPublish;
    // Answered while the first publish is still in flight: their events wait behind it.
    const behind = [await check(), await check()];
    expect(behind.map((r) => r.statusCode)).toEqual([200, 200]);
    const closing = app.close();
    opened();
    await closing;
    expect((await usage()).map((e) => e.request_id)).toEqual([first, ...behind].map((r) => r.headers['request-id']));
  });

  it('while the log refuses a publish, checks are refused (500, key released); the events taken are written once when it works again', async () => {
    const { pipeline, usage } = await fileLog();
    let refusing = true;
    let refused!: () => void;
    const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
    const events = {
      publish: async (e: PipelineEvent | PipelineEvent[]) => {
        if (refusing) {
          refused();
          throw new Error('the event log refuses writes');
        }
        return pipeline.publish(e);
      },
    };
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES, withDeps: () => ({ events }) });
    const check = (key: string) => app.inject({
      method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.liveKey), 'idempotency-key': key }, payload: { people },
    });
    const answered = await check('first');
    expect(answered.statusCode).toBe(200);
    await firstRefusal;
    const refusedCheck = await check('second');
    expect(refusedCheck.statusCode).toBe(500);
    expect(refusedCheck.json()).toMatchObject({ error: { code: 'internal_error' } });

    refusing = false;
    await app.usageWritten();
    // The key was released: the same call runs now (not a replay) and is counted once.
    const retried = await check('second');
    expect(retried.statusCode).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    await app.usageWritten();
    expect((await usage()).map((e) => e.request_id)).toEqual([answered.headers['request-id'], retried.headers['request-id']]);
  });
});
