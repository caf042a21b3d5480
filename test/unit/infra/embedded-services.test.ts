import { describe, expect, it } from 'vitest';
import { embeddedServices, SERVICE_NAMES } from '../../../services/processes.ts';

/** What `npm start` runs (services/main.ts asks services/processes.ts; docs/architecture.md "Processes and configuration"). */
describe('embeddedServices', () => {
  const key = 'A'.repeat(43) + '=';

  it('runs the consumers in worker threads first, then the API and the monitor service on the main thread', () => {
    expect(embeddedServices({})).toEqual([
      { name: 'projection', thread: 'worker' },
      { name: 'matcher', thread: 'worker' },
      { name: 'api', thread: 'main' },
      { name: 'monitor', thread: 'main' },
    ]);
  });

  it('adds SFTP and connectors with the key that seals their credentials, email with the mailbox', () => {
    expect(embeddedServices({ INBOUND_SECRET_KEY: key }).map((s) => s.name)).toEqual(['projection', 'matcher', 'api', 'monitor', 'sftp', 'connectors']);
    expect(embeddedServices({ IMAP_HOST: '127.0.0.1' }).map((s) => s.name)).toEqual(['projection', 'matcher', 'api', 'monitor', 'email']);
  });

  it('with everything configured runs every service once', () => {
    const names = embeddedServices({ INBOUND_SECRET_KEY: key, IMAP_HOST: '127.0.0.1' }).map((s) => s.name);
    expect([...names].sort()).toEqual([...SERVICE_NAMES].sort());
  });
});
