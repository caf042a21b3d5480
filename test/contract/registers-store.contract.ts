import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  RegisterVersionNotFoundError, RegisterVersionNotSealedError, RegisterVersionSealedError,
  type RegisterKind, type RegisterStore, type RegisterVersion,
} from '../../services/platform/store/registers-port.ts';
import { useHarness } from './harness.ts';

export interface RegisterStoreHarness {
  store: RegisterStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<RegisterStore>;
  close(): Promise<void>;
}

/** The RegisterStore conformance suite: every adapter passes it unchanged (each on its own database). */
export function registersStoreContract(adapter: string, open: () => Promise<RegisterStoreHarness>): void {
  describe(`RegisterStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): RegisterStore => harness().store;

    it('reads records back in append order, in chunks of the asked size', async () => {
      const v = version('companies');
      await store().createRegisterVersion(v);
      await store().appendRegisterRecords(v.id, records(0, 2500));
      await store().appendRegisterRecords(v.id, []);
      await store().appendRegisterRecords(v.id, records(2500, 4507));
      const sealed = await store().sealRegisterVersion(v.id);
      expect(sealed).toEqual({ ...v, record_count: 7007 });
      const chunks = await readAll(store(), v.id, 1000);
      expect(chunks.slice(0, -1).every((c) => c.length === 1000)).toBe(true);
      expect(chunks.flat()).toEqual(records(0, 7007));
      await expect(readAll(store(), v.id, 0)).rejects.toBeInstanceOf(RangeError);
    });

    it('refuses appends after sealing, unknown versions and activating an unsealed version', async () => {
      const v = version('phones');
      await store().createRegisterVersion(v);
      await store().appendRegisterRecords(v.id, records(0, 3));
      await expect(store().activateRegisterVersion(v.id, now())).rejects.toBeInstanceOf(RegisterVersionNotSealedError);
      expect(await store().getRegisterVersion(v.id)).toEqual(v);
      await store().sealRegisterVersion(v.id);
      await expect(store().appendRegisterRecords(v.id, records(0, 1))).rejects.toBeInstanceOf(RegisterVersionSealedError);
      const unknown = randomUUID();
      await expect(store().appendRegisterRecords(unknown, records(0, 1))).rejects.toBeInstanceOf(RegisterVersionNotFoundError);
      await expect(store().sealRegisterVersion(unknown)).rejects.toBeInstanceOf(RegisterVersionNotFoundError);
      await expect(store().activateRegisterVersion(unknown, now())).rejects.toBeInstanceOf(RegisterVersionNotFoundError);
      await expect(readAll(store(), unknown)).rejects.toBeInstanceOf(RegisterVersionNotFoundError);
      expect(await store().getRegisterVersion(unknown)).toBeNull();
    });

    it('activating a version replaces the active one of its kind only; the old one stays readable', async () => {
      const phones = await sealedVersion(store(), 'phones', 2);
      await store().activateRegisterVersion(phones.id, '2026-03-01T00:00:00.000Z');
      const first = await sealedVersion(store(), 'companies', 5);
      const second = await sealedVersion(store(), 'companies', 7);
      const activatedFirst = await store().activateRegisterVersion(first.id, '2026-03-02T00:00:00.000Z');
      expect(activatedFirst).toEqual({ ...first, activated_at: '2026-03-02T00:00:00.000Z' });
      expect(await store().getActiveRegisterVersion('companies')).toEqual(activatedFirst);
      await store().activateRegisterVersion(second.id, '2026-03-03T00:00:00.000Z');
      expect((await store().getActiveRegisterVersion('companies'))?.id).toBe(second.id);
      expect((await store().getActiveRegisterVersion('phones'))?.id).toBe(phones.id);
      expect((await readAll(store(), first.id)).flat()).toEqual(records(0, 5));
      // A rollback: the older version again, with a new activation time.
      await store().activateRegisterVersion(first.id, '2026-03-04T00:00:00.000Z');
      expect(await store().getActiveRegisterVersion('companies')).toEqual({ ...first, activated_at: '2026-03-04T00:00:00.000Z' });
      const listed = await store().listRegisterVersions('companies');
      // Other tests of the suite share the database: look at this test's versions, in creation order.
      expect(listed.map((v) => v.id).filter((id) => id === first.id || id === second.id)).toEqual([first.id, second.id]);
      expect(listed.every((v) => v.kind === 'companies')).toBe(true);
    });

    it('keeps versions and records across a reopen (durable when the promise resolved)', async () => {
      const v = await sealedVersion(store(), 'companies', 1500);
      await store().activateRegisterVersion(v.id, now());
      const again = await harness().reopen();
      expect((await again.getActiveRegisterVersion('companies'))?.id).toBe(v.id);
      expect((await readAll(again, v.id, 10_000)).flat()).toEqual(records(0, 1500));
    });
  });
}

let clock = Date.parse('2026-02-01T00:00:00.000Z');
const now = () => new Date((clock += 1000)).toISOString();

function version(kind: RegisterKind): RegisterVersion {
  return { id: randomUUID(), kind, published_on: '2026-02-01', created_at: now(), activated_at: null, record_count: 0 };
}

/** Records with a nested shape and non-ASCII text, as the company importer writes them. */
function records(from: number, count: number): object[] {
  return Array.from({ length: count }, (_, i) => ({
    cvr: String(10_000_000 + from + i), name: `Ærø Tømrer ${from + i} ApS`, protected: (from + i) % 3 === 0,
    owner: (from + i) % 2 === 0 ? { name: 'Søren Ås', address: 'Gl. Kongevej 1, 1610 København V' } : null,
  }));
}

async function sealedVersion(store: RegisterStore, kind: RegisterKind, count: number): Promise<RegisterVersion> {
  const v = version(kind);
  await store.createRegisterVersion(v);
  await store.appendRegisterRecords(v.id, records(0, count));
  return store.sealRegisterVersion(v.id);
}

async function readAll(store: RegisterStore, id: string, chunkSize?: number): Promise<object[][]> {
  const chunks: object[][] = [];
  for await (const chunk of store.readRegisterRecords<object>(id, chunkSize)) chunks.push(chunk);
  return chunks;
}
