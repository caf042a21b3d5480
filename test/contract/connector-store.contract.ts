import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Connector, ConnectorStore } from '../../services/platform/store/connectors-port.ts';
import { useHarness } from './harness.ts';

export interface ConnectorStoreHarness {
  store: ConnectorStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<ConnectorStore>;
  close(): Promise<void>;
}

/** The ConnectorStore conformance suite: every adapter passes it unchanged. */
export function connectorStoreContract(adapter: string, open: () => Promise<ConnectorStoreHarness>): void {
  describe(`ConnectorStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): ConnectorStore => harness().store;

    it('stores connectors per organisation; a removed one is readable but no longer listed', async () => {
      const org = randomUUID();
      const a = connector({ org_id: org, created_at: '2026-01-01T00:00:00.000Z', column_mapping: { header_row: 0, name: 'Navn' } });
      const b = connector({ org_id: org, created_at: '2026-01-02T00:00:00.000Z', target: { kind: 'monitor', monitor_id: randomUUID() }, auth_header_name: null, auth_header_sealed: null });
      await store().createConnector(a);
      await store().createConnector(b);
      expect(await store().getConnector(a.id)).toEqual(a);
      expect(await store().getConnector(randomUUID())).toBeNull();
      expect((await store().listConnectors(org)).map((c) => c.id)).toEqual([a.id, b.id]);
      expect((await store().listConnectors()).map((c) => c.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      expect(await store().removeConnector(a.id, '2026-02-01T00:00:00.000Z')).toBe(true);
      expect(await store().removeConnector(randomUUID(), '2026-02-01T00:00:00.000Z')).toBe(false);
      expect((await store().listConnectors(org)).map((c) => c.id)).toEqual([b.id]);
      const reopened = await harness().reopen();
      expect((await reopened.getConnector(a.id))?.removed_at).toBe('2026-02-01T00:00:00.000Z');
      expect(await reopened.getConnector(b.id)).toEqual(b);
    });

    it('keeps the latest status of a connector, durably', async () => {
      const id = randomUUID();
      expect(await store().getStatus(id)).toBeNull();
      await store().recordStatus({
        connector_id: id, last_slot: 10, last_run_at: '2026-01-01T00:00:00.000Z', last_ok_at: null, last_job_id: null,
        last_error: 'connect_error:ECONNREFUSED', last_error_at: '2026-01-01T00:00:00.000Z', failures: 1,
      });
      const ok = {
        connector_id: id, last_slot: 11, last_run_at: '2026-01-01T00:01:00.000Z', last_ok_at: '2026-01-01T00:01:00.000Z', last_job_id: randomUUID(),
        last_error: 'connect_error:ECONNREFUSED', last_error_at: '2026-01-01T00:00:00.000Z', failures: 0,
      };
      await store().recordStatus(ok);
      expect(await store().getStatus(id)).toEqual(ok);
      expect(await (await harness().reopen()).getStatus(id)).toEqual(ok);
    });
  });
}

function connector(over: Partial<Connector>): Connector {
  return {
    id: randomUUID(), org_id: randomUUID(), url: 'https://crm.example.dk/export.csv',
    auth_header_name: 'Authorization', auth_header_sealed: 'v1.aaa.bbb.ccc', interval_seconds: 3600,
    target: { kind: 'job' }, column_mapping: null, options: { stop_level: 2 }, locale: 'da',
    created_at: '2026-01-01T00:00:00.000Z', removed_at: null, ...over,
  };
}
