import { activateRegister } from '../../../services/registers/companies/register-import.ts';
import { createRegisters } from '../../../services/registers/companies/registers.ts';
import type { CompanyRecord, DirectoryEntry } from '../../../services/domain/index.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createEmbeddedRegisterStore } from '../../../services/platform/store/embedded/registers.ts';
import type { RegisterKind, RegisterStore } from '../../../services/platform/store/registers-port.ts';
import { build, LIVE_ENTRIES, seedOrg, type BuildOptions } from './helper.ts';

/** The import time of the test register (a result's synced_at). */
export const REGISTER_CREATED_AT = '2026-10-02T04:00:00.000Z';

/** Søren Kjær of LIVE_ENTRIES owns the ENK; nobody of the list owns the others. */
export const COMPANIES: CompanyRecord[] = [
  { cvr: '25313763', name: 'Kjærs Tømrer', form: 'ENK', protected: false, owner: { name: 'Søren Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' } },
  { cvr: '10150817', name: 'Nordisk Rådgivning ApS', form: 'ApS', protected: true, owner: null },
  { cvr: '35657339', name: 'Holm Handel', form: 'PMV', protected: false, owner: { name: 'Anne Holm', address: 'Algade 1, 4000 Roskilde' } },
  { cvr: '29403473', name: 'Fælles Navn ApS', form: 'ApS', protected: false, owner: null },
  { cvr: '31662834', name: 'Fælles Navn ApS', form: 'ApS', protected: false, owner: null },
  { cvr: '30698649', name: 'Kjær & Søn A/S', form: 'A/S', protected: false, owner: null },
];

export const DIRECTORY: DirectoryEntry[] = [
  { number: '+4520123456', name: 'Søren Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C', listed: true },
  { number: '+4533123456', name: 'Hemmelig Person', address: 'Skjult 1, 8000 Aarhus C', listed: false },
  { number: '+4540123456', name: 'Ukendt Person', address: 'Algade 1, 4000 Roskilde', listed: true },
];

export async function seedRegister(store: RegisterStore, kind: RegisterKind, records: object[], createdAt = REGISTER_CREATED_AT): Promise<string> {
  const id = crypto.randomUUID();
  await store.createRegisterVersion({ id, kind, published_on: '2026-10-01', created_at: createdAt, activated_at: null, record_count: 0 });
  await store.appendRegisterRecords(id, records);
  await store.sealRegisterVersion(id);
  await activateRegister({ store, logger: silentLogger() }, id);
  return id;
}

/**
 * The API of helper.ts plus a company register and an imported phone directory (the file
 * adapter) on the same database, and organisations with and without the add-ons.
 */
export async function buildWithRegisters(options: BuildOptions & { registers?: boolean; directory?: import('../../../services/registers/phones/directory-port.ts').PhoneDirectory } = {}) {
  let store!: RegisterStore;
  let registers!: ReturnType<typeof createRegisters>;
  const built = await build({
    liveEntries: LIVE_ENTRIES,
    ...options,
    withDeps: (db) => {
      store = createEmbeddedRegisterStore(db);
      registers = createRegisters(store, silentLogger(), { PHONE_DIRECTORY_TIMEOUT_MS: 5000 });
      return { companyRegister: registers.companies, phoneDirectory: options.directory ?? registers.directory, ...options.withDeps?.(db) };
    },
  });
  if (options.registers !== false) {
    await seedRegister(store, 'companies', COMPANIES);
    await seedRegister(store, 'phones', DIRECTORY);
    await registers.refresh();
  }
  const withAddons = await seedOrg(built.accounts, { addons: ['company', 'phone'] });
  const strictOrg = await seedOrg(built.accounts, { addons: ['company', 'phone'], stop_level: 3 });
  return { ...built, store, registers, withAddons, strictOrg };
}
