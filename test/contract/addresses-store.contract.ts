import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RegisterAddress } from '../../services/domain/address-register.ts';
import {
  AddressVersionError, type AddressStore, type AddressVersion,
} from '../../services/platform/store/addresses-port.ts';
import { generateRegisterAddresses } from '../../services/synthetic/register.ts';
import { useHarness } from './harness.ts';

export interface AddressStoreHarness {
  store: AddressStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<AddressStore>;
  close(): Promise<void>;
}

const SAMPLE: RegisterAddress[] = [...generateRegisterAddresses(9_000)];
// The register's own oddities survive the round trip: nulls, a supplementary town, a 0800 code.
SAMPLE[1] = { ...SAMPLE[1], addressingName: null, kommunekode: null, vejkode: null, town: 'Skee', postalCode: '0800' };

function version(): AddressVersion {
  return { id: randomUUID(), published_on: '2026-11-01', created_at: new Date().toISOString(), activated_at: null, address_count: 0 };
}

async function readAll(store: AddressStore, id: string, chunkSize?: number): Promise<RegisterAddress[][]> {
  const chunks: RegisterAddress[][] = [];
  for await (const chunk of store.readAddresses(id, chunkSize)) chunks.push(chunk);
  return chunks;
}

/**
 * The AddressStore conformance suite: every adapter passes it unchanged. There is one active
 * register at a time, so the activation test looks only at its own versions and runs in order.
 */
export function addressesStoreContract(adapter: string, open: () => Promise<AddressStoreHarness>): void {
  describe(`AddressStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): AddressStore => harness().store;

    it('reads addresses back in append order, in chunks of the asked size, field for field', async () => {
      const v = version();
      await store().createAddressVersion(v);
      await store().appendAddresses(v.id, SAMPLE.slice(0, 4_500));
      await store().appendAddresses(v.id, []);
      await store().appendAddresses(v.id, SAMPLE.slice(4_500));
      expect(await store().sealAddressVersion(v.id)).toEqual({ ...v, address_count: SAMPLE.length });
      const chunks = await readAll(store(), v.id, 1_000);
      expect(chunks.slice(0, -1).every((c) => c.length === 1_000)).toBe(true);
      expect(chunks.flat()).toEqual(SAMPLE);
      expect((await readAll(await harness().reopen(), v.id)).flat()).toEqual(SAMPLE);
      await expect(readAll(store(), v.id, 0)).rejects.toBeInstanceOf(RangeError);
    });

    it('refuses appends after seal, activation before it, and unknown versions', async () => {
      const v = version();
      await store().createAddressVersion(v);
      await store().appendAddresses(v.id, SAMPLE.slice(0, 3));
      await expect(store().activateAddressVersion(v.id, new Date().toISOString()))
        .rejects.toMatchObject({ name: 'AddressVersionError', reason: 'not_sealed' });
      await store().sealAddressVersion(v.id);
      await expect(store().appendAddresses(v.id, SAMPLE.slice(0, 1)))
        .rejects.toMatchObject({ name: 'AddressVersionError', reason: 'sealed' });
      const unknown = randomUUID();
      await expect(store().appendAddresses(unknown, SAMPLE.slice(0, 1))).rejects.toBeInstanceOf(AddressVersionError);
      await expect(readAll(store(), unknown)).rejects.toMatchObject({ reason: 'not_found' });
      expect(await store().getAddressVersion(unknown)).toBeNull();
    });

    it('activating one version deactivates the one before; the old one stays readable; rollback works', async () => {
      const first = version();
      const second = version();
      for (const v of [first, second]) {
        await store().createAddressVersion(v);
        await store().appendAddresses(v.id, SAMPLE.slice(0, 10));
        await store().sealAddressVersion(v.id);
      }
      const t1 = '2026-11-02T10:00:00.000Z';
      await store().activateAddressVersion(first.id, t1);
      expect(await store().getActiveAddressVersion()).toEqual({ ...first, activated_at: t1, address_count: 10 });
      const t2 = '2026-11-02T11:00:00.000Z';
      await store().activateAddressVersion(second.id, t2);
      expect((await store().getActiveAddressVersion())?.id).toBe(second.id);
      expect((await readAll(store(), first.id)).flat()).toHaveLength(10);
      const t3 = '2026-11-02T12:00:00.000Z';
      await store().activateAddressVersion(first.id, t3);
      const reopened = await harness().reopen();
      expect(await reopened.getActiveAddressVersion()).toEqual({ ...first, activated_at: t3, address_count: 10 });
      const listed = (await reopened.listAddressVersions()).map((v) => v.id);
      expect(listed.indexOf(first.id)).toBeLessThan(listed.indexOf(second.id));
    });
  });
}
