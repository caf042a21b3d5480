import { describe, expect, it } from 'vitest';
import { embeddedServices, SERVICE_NAMES } from '../../../services/processes.ts';

/** What `npm start` runs (services/main.ts asks services/processes.ts; docs/architecture.md "Processes and configuration"). */
describe('embeddedServices', () => {
  const key = 'A'.repeat(43) + '=';
  const one = { EMBEDDED_MATCHER_THREADS: 1 };

  it('runs the consumers in worker threads first, then the API and the monitor service on the main thread', () => {
    expect(embeddedServices(one)).toEqual([
      { name: 'projection', thread: 'worker' },
      { name: 'matcher', thread: 'worker', share: { member: 0, of: 1 } },
      { name: 'api', thread: 'main' },
      { name: 'monitor', thread: 'main' },
    ]);
  });

  it('runs EMBEDDED_MATCHER_THREADS matcher threads, each with its own share of the row partitions', () => {
    const matchers = embeddedServices({ EMBEDDED_MATCHER_THREADS: 3 }).filter((s) => s.name === 'matcher');
    expect(matchers).toEqual([0, 1, 2].map((member) => ({ name: 'matcher', thread: 'worker', share: { member, of: 3 } })));
  });

  it('adds SFTP and connectors with the key that seals their credentials, email with the mailbox', () => {
    expect(embeddedServices({ ...one, INBOUND_SECRET_KEY: key }).map((s) => s.name)).toEqual(['projection', 'matcher', 'api', 'monitor', 'sftp', 'connectors']);
    expect(embeddedServices({ ...one, IMAP_HOST: '127.0.0.1' }).map((s) => s.name)).toEqual(['projection', 'matcher', 'api', 'monitor', 'email']);
  });

  it('with everything configured runs every service once', () => {
    const names = embeddedServices({ ...one, INBOUND_SECRET_KEY: key, IMAP_HOST: '127.0.0.1' }).map((s) => s.name);
    expect([...names].sort()).toEqual([...SERVICE_NAMES].sort());
  });
});
