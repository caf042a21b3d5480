import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { PersonInput } from '../../../../services/domain/types.ts';
import { blockPlace, newDataKey, sealContacts } from '../../../../services/ingest/monitors/contact-seal.ts';
import { createMonitorService } from '../../../../services/ingest/monitors/service.ts';
import type { Logger } from '../../../../services/platform/logger.ts';
import { createEmbeddedAccountStore } from '../../../../services/platform/store/embedded/accounts.ts';
import { createEmbeddedAddressStore } from '../../../../services/platform/store/embedded/addresses.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedListStore } from '../../../../services/platform/store/embedded/lists.ts';
import { createEmbeddedMonitorStore } from '../../../../services/platform/store/embedded/monitors.ts';
import type { MonitorRecord, MonitorStore } from '../../../../services/platform/store/monitors-port.ts';

/**
 * The monitor retention sweep (`sweepExpired` of services/ingest/monitors/service.ts, the sweep
 * `monitor-expired` of docs/privacy-and-proof.md "Every store: what personal data, how long, what
 * deletes it"): one monitor that cannot be deleted must not keep the other monitors' people past
 * their retention, and the failure is reported by the monitor's id alone, never with the people
 * or the words of the error that quoted them.
 */
const NOW = new Date('2026-03-01T12:00:00.000Z');
const PAST = '2026-02-01T00:00:00.000Z';
const FUTURE = '2026-06-01T00:00:00.000Z';
const PERSON: PersonInput = { name: 'Kirsten Sørensen Blæsbjerg', address: 'Hyldebærvej 17, 7100 Vejle' };

function recordingLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>>; text: () => string } {
  const kept: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      kept.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return {
    logger: pino({ level: 'debug' }, sink),
    lines: () => kept.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => kept.join('\n'),
  };
}

function monitor(id: string, deleteAfter: string, dataKey: string): MonitorRecord {
  return {
    id, org_id: 'org-1', mode: 'live', external_ref: null, callback_url: null,
    options: { policy: 'standard', stop_level: 5 }, locale: 'da', key_hash: 'ab'.repeat(32),
    generation: 1, contact_count: 1, data_key: dataKey, retention_days: 30, delete_after: deleteAfter,
    created_at: PAST, updated_at: PAST, deleted_at: null, checked: null, run: null,
  };
}

async function plantMonitor(store: MonitorStore, id: string, deleteAfter: string): Promise<void> {
  const dataKey = newDataKey();
  await store.createMonitor(monitor(id, deleteAfter, dataKey));
  await store.putContactBlocks(id, 1, [{ block: 0, keys: ['k0'], sealed: sealContacts(dataKey, blockPlace(id, 1, 0), [PERSON]) }]);
}

function serviceOn(monitors: MonitorStore, logger: Logger) {
  const db = openEmbeddedDatabase(':memory:');
  return createMonitorService({
    monitors, jobs: createEmbeddedJobStore(db), lists: createEmbeddedListStore(db), addresses: createEmbeddedAddressStore(db),
    accounts: createEmbeddedAccountStore(db), events: { publish: async () => undefined }, logger,
    checkCallbackUrl: async () => undefined, spoolDir: '/nonexistent-spool-never-written', intervalMs: 60_000, clock: () => NOW,
  });
}

async function contactsLeft(store: MonitorStore, id: string): Promise<number> {
  return (await store.readContactBlocks(id, 1, { from: 0, to: 10 })).length;
}

describe('monitor retention sweep: one failing monitor does not keep the others', () => {
  it('deletes every other expired monitor, keeps the failing one for the next sweep, and reports it by id only', async () => {
    const store = createEmbeddedMonitorStore(openEmbeddedDatabase(':memory:'));
    // Listed in id order: the failing monitor stands between two that must still go.
    for (const id of ['m-a', 'm-b', 'm-c']) await plantMonitor(store, id, PAST);
    await plantMonitor(store, 'm-kept', FUTURE);
    const deleteMonitor = store.deleteMonitor.bind(store);
    let failing = true;
    store.deleteMonitor = async (id, at) => {
      // A storage error that quotes a person, as a library's message may (services/platform/logger.ts errorFields).
      if (id === 'm-b' && failing) throw new Error(`constraint failed for "${PERSON.name}"`);
      return deleteMonitor(id, at);
    };
    const log = recordingLogger();
    const service = serviceOn(store, log.logger);

    expect(await service.sweepExpired()).toBe(2);

    for (const id of ['m-a', 'm-c']) {
      expect((await store.getMonitorById(id))?.deleted_at).toBe(NOW.toISOString());
      expect(await contactsLeft(store, id)).toBe(0);
    }
    expect((await store.getMonitorById('m-b'))?.deleted_at).toBeNull();
    expect(await contactsLeft(store, 'm-b')).toBe(1);
    expect((await store.getMonitorById('m-kept'))?.deleted_at).toBeNull();

    const failures = log.lines().filter((line) => line.msg === 'monitor.retention_failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ monitor_id: 'm-b', err: { name: 'Error' } });
    expect(log.lines().filter((line) => line.msg === 'monitor.retention_deleted').map((line) => line.monitor_id)).toEqual(['m-a', 'm-c']);
    expect(log.text()).not.toContain('Kirsten');
    expect(log.text()).not.toContain('Hyldebærvej');

    // The next sweep, once the store works again, deletes the one left behind.
    failing = false;
    expect(await service.sweepExpired()).toBe(1);
    expect((await store.getMonitorById('m-b'))?.deleted_at).toBe(NOW.toISOString());
    expect(await contactsLeft(store, 'm-b')).toBe(0);
    expect((await store.getMonitorById('m-kept'))?.deleted_at).toBeNull();
  });
});
