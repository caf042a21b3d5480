import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DropFolder, InboundClaim, InboundStore } from '../../services/platform/store/inbound-port.ts';
import { useHarness } from './harness.ts';

export interface InboundStoreHarness {
  store: InboundStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<InboundStore>;
  close(): Promise<void>;
}

/** The InboundStore conformance suite: every adapter passes it unchanged. */
export function inboundStoreContract(adapter: string, open: () => Promise<InboundStoreHarness>): void {
  describe(`InboundStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): InboundStore => harness().store;

    it('stores drop folders per organisation; a removed one is readable but no longer listed', async () => {
      const org = randomUUID();
      const a = folder({ org_id: org, created_at: '2026-01-01T00:00:00.000Z', column_mapping: { header_row: 1, name: 'Navn' } });
      const b = folder({ org_id: org, created_at: '2026-01-02T00:00:00.000Z', options: { stop_level: 3 } });
      await store().createDropFolder(a);
      await store().createDropFolder(b);
      expect(await store().getDropFolder(a.id)).toEqual(a);
      expect((await store().listDropFolders(org)).map((f) => f.id)).toEqual([a.id, b.id]);
      expect((await store().listDropFolders()).map((f) => f.id)).toEqual(expect.arrayContaining([a.id, b.id]));
      expect(await store().removeDropFolder(a.id, '2026-02-01T00:00:00.000Z')).toBe(true);
      expect(await store().removeDropFolder(randomUUID(), '2026-02-01T00:00:00.000Z')).toBe(false);
      expect((await store().listDropFolders(org)).map((f) => f.id)).toEqual([b.id]);
      expect((await (await harness().reopen()).getDropFolder(a.id))?.removed_at).toBe('2026-02-01T00:00:00.000Z');
    });

    it('keeps the latest poll status of a folder', async () => {
      const id = randomUUID();
      expect(await store().getFolderStatus(id)).toBeNull();
      await store().recordFolderStatus({ folder_id: id, last_ok_at: null, last_error: 'ECONNREFUSED', last_error_at: '2026-01-01T00:00:00.000Z', failures: 1 });
      const ok = { folder_id: id, last_ok_at: '2026-01-01T00:01:00.000Z', last_error: 'ECONNREFUSED', last_error_at: '2026-01-01T00:00:00.000Z', failures: 0 };
      await store().recordFolderStatus(ok);
      expect(await (await harness().reopen()).getFolderStatus(id)).toEqual(ok);
    });

    it('finds an allowed sender case-insensitively, first organisation wins, removal is per organisation', async () => {
      const [org1, org2] = [randomUUID(), randomUUID()];
      const address = `Kunde.${randomUUID().slice(0, 8)}@Customer.TEST`;
      await store().addSender({ org_id: org1, address, locale: 'en', created_at: '2026-01-01T00:00:00.000Z' });
      await store().addSender({ org_id: org2, address, locale: null, created_at: '2026-01-02T00:00:00.000Z' });
      expect(await store().findSender(address.toUpperCase())).toEqual({ org_id: org1, address: address.toLowerCase(), locale: 'en', created_at: '2026-01-01T00:00:00.000Z' });
      expect((await store().listSenders(org2)).map((s) => s.address)).toEqual([address.toLowerCase()]);
      expect(await store().removeSender(org1, address)).toBe(true);
      expect(await store().removeSender(org1, address)).toBe(false);
      expect((await store().findSender(address))?.org_id).toBe(org2);
      expect(await store().removeSender(org2, address)).toBe(true);
      expect(await (await harness().reopen()).findSender(address)).toBeNull();
    });

    it('claims once: a second claim with the same id returns the first', async () => {
      const first = claim({ item: 'a.csv.1.processing' });
      expect(await store().claim(first)).toEqual(first);
      expect(await store().claim({ ...first, item: 'other', state: 'delivered' })).toEqual(first);
      expect(await (await harness().reopen()).getClaim(first.id)).toEqual(first);
      expect(await store().getClaim(randomUUID())).toBeNull();
    });

    it('lists open claims of a source and claims due for deletion', async () => {
      const source = randomUUID();
      const a = claim({ source_ref: source, created_at: '2026-01-01T00:00:00.000Z' });
      const b = claim({ source_ref: source, created_at: '2026-01-01T00:00:01.000Z' });
      const other = claim({ source_ref: randomUUID() });
      for (const c of [a, b, other]) await store().claim(c);
      expect((await store().listOpenClaims('sftp', source)).map((c) => c.id)).toEqual([a.id, b.id]);
      expect(await store().listOpenClaims('email', source)).toEqual([]);

      const updated = await store().updateClaim(a.id, {
        state: 'job_created', delete_after: '2000-01-02T00:00:00.000Z', outputs: ['/outbox/a.result.csv'], updated_at: '2026-01-01T00:00:05.000Z',
      });
      expect(updated).toEqual({ ...a, state: 'job_created', delete_after: '2000-01-02T00:00:00.000Z', outputs: ['/outbox/a.result.csv'], updated_at: '2026-01-01T00:00:05.000Z' });
      await store().updateClaim(b.id, { state: 'delivered', delete_after: '2999-01-01T00:00:00.000Z' });
      expect((await store().listOpenClaims('sftp', source)).map((c) => c.id)).toEqual([a.id]);

      const due = (await store().listClaimsDue('2000-01-02T00:00:00.000Z', 1000)).map((c) => c.id);
      expect(due).toContain(a.id);
      expect(due).not.toContain(b.id);
      await store().updateClaim(a.id, { state: 'deleted' });
      expect((await (await harness().reopen()).listClaimsDue('2000-01-02T00:00:00.000Z', 1000)).map((c) => c.id)).not.toContain(a.id);
      expect(await store().updateClaim(randomUUID(), { state: 'deleted' })).toBeNull();
    });
  });
}

function folder(overrides: Partial<DropFolder> = {}): DropFolder {
  return {
    id: randomUUID(), org_id: randomUUID(), host: '127.0.0.1', port: 12022, username: 'rls_x',
    host_key_sha256: 'SHA256:abc', auth: 'key', secret_sealed: 'v1.x.y.z', path: '/', column_mapping: null,
    options: {}, locale: 'da', created_at: '2026-01-01T00:00:00.000Z', removed_at: null, ...overrides,
  };
}

function claim(overrides: Partial<InboundClaim> = {}): InboundClaim {
  return {
    id: randomUUID(), channel: 'sftp', org_id: randomUUID(), source_ref: randomUUID(), item: 'x.csv',
    state: 'claimed', outputs: [], delete_after: null, created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z', ...overrides,
  };
}
