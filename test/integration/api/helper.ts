import type { Config } from '../../../services/platform/config.ts';
import type { QuotaConfigName } from '../../../services/api/quotas.ts';
import { createActiveAddressRegister } from '../../../services/registers/addresses/active-register.ts';
import type { RegisterAddress } from '../../../services/domain/address-register.ts';
import { createEmbeddedAddressStore } from '../../../services/platform/store/embedded/addresses.ts';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { DatabaseSync } from 'node:sqlite';
import type { ApiDeps } from '../../../services/api/app.ts';
import { expect, onTestFinished } from 'vitest';
import { issueApiKey } from '../../../services/admin/keys.ts';
import { buildApp } from '../../../services/api/app.ts';
import type { ListEntry } from '../../../services/domain/types.ts';
import { createActiveListIndex } from '../../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import type { AccountStore, Organisation } from '../../../services/platform/store/accounts-port.ts';
import { createEmbeddedAccountStore } from '../../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from '../../../services/platform/store/embedded/idempotency.ts';
import { createEmbeddedListStore } from '../../../services/platform/store/embedded/lists.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { createCursorSeal } from '../../../services/platform/keys/cursor-seal.ts';

export interface SeededOrg {
  org: Organisation;
  liveKey: string;
  testKey: string;
}

/** Creates an organisation with one live and one test key; returns the key texts. */
export async function seedOrg(accounts: AccountStore, patch: Partial<Organisation> = {}): Promise<SeededOrg> {
  const org: Organisation = {
    id: randomUUID(),
    name: `org-${randomUUID().slice(0, 8)}`,
    stop_level: 1,
    plan: 'annual',
    api_agreement: false,
    suspended: false,
    retention_days: 30,
    addons: [],
    created_at: new Date().toISOString(),
    ...patch,
  };
  await accounts.createOrganisation(org);
  const live = await issueApiKey(accounts, org.id, 'live');
  const test = await issueApiKey(accounts, org.id, 'test');
  return { org, liveKey: live.key, testKey: test.key };
}

export const LIVE_VERSION_ID = '11111111-1111-4111-8111-111111111111';

/** A tiny live list: one person at a flat in Aarhus. */
export const LIVE_ENTRIES: ListEntry[] = [
  { first_name: 'Søren', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' },
  { first_name: 'Anne', last_name: 'Hansen', address: 'Nørregade 3, 1000 København K' },
];

export interface BuildOptions {
  /** Load and activate a live list version with these entries; default none (no active list). */
  liveEntries?: ListEntry[];
  ratePerSecond?: number;
  /** More configuration of the app (server timeouts, quotas). */
  config?: Partial<Pick<Config, 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_IDLE_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS' | QuotaConfigName>>;
  burst?: number;
  clock?: () => Date;
  /** Wraps the account store, e.g. to make it fail. */
  wrapAccounts?: (accounts: AccountStore) => AccountStore;
  /** Import, activate and load an address register of these unit addresses. */
  registerAddresses?: RegisterAddress[];
  /** More dependencies (check jobs, events) on the same database. */
  withDeps?: (db: DatabaseSync) => Partial<ApiDeps>;
}

/**
 * An app on a fresh in-memory database with two ordinary organisations (A, B) and ones that are
 * pay-per-list without agreement and suspended. The app is closed when the test finishes.
 */
export async function build(options: BuildOptions = {}) {
  const db = openEmbeddedDatabase(':memory:');
  const logger = silentLogger();
  const accounts = createEmbeddedAccountStore(db);
  const lists = createEmbeddedListStore(db);
  const idempotency = createEmbeddedIdempotencyStore(db);
  const addressStore = createEmbeddedAddressStore(db);
  const addresses = createActiveAddressRegister({ store: addressStore, logger });
  if (options.registerAddresses) {
    const version = { id: '22222222-2222-4222-8222-222222222222', published_on: '2026-11-01', created_at: new Date().toISOString(), activated_at: null, address_count: 0 };
    await addressStore.createAddressVersion(version);
    await addressStore.appendAddresses(version.id, options.registerAddresses);
    await addressStore.sealAddressVersion(version.id);
    await addressStore.activateAddressVersion(version.id, new Date().toISOString());
  }
  const activeIndex = createActiveListIndex({ listStore: lists, logger, addresses });
  if (options.registerAddresses && !options.liveEntries) await activeIndex.refresh();
  if (options.liveEntries) {
    await lists.createListVersion({
      id: LIVE_VERSION_ID,
      source: 'cpr',
      org_id: null,
      published_on: '2026-10-01',
      created_at: new Date().toISOString(),
      activated_at: null,
      entry_count: 0,
    });
    await lists.appendListEntries(LIVE_VERSION_ID, options.liveEntries);
    await lists.sealListVersion(LIVE_VERSION_ID);
    await lists.activateListVersion(LIVE_VERSION_ID, new Date().toISOString());
    await activeIndex.refresh();
  }
  const orgA = await seedOrg(accounts, { stop_level: 1 });
  const orgB = await seedOrg(accounts, { stop_level: 3 });
  const payPerList = await seedOrg(accounts, { plan: 'pay_per_list', api_agreement: false });
  const payPerListWithAgreement = await seedOrg(accounts, { plan: 'pay_per_list', api_agreement: true });
  const suspended = await seedOrg(accounts, { suspended: true });
  const app: FastifyInstance = buildApp({
    config: { RATE_LIMIT_PER_SECOND: options.ratePerSecond ?? 1000, RATE_LIMIT_BURST: options.burst ?? 1000, ...options.config },
    logger,
    accounts: options.wrapAccounts ? options.wrapAccounts(accounts) : accounts,
    lists,
    activeIndex,
    idempotency,
    // Every synchronous check's answer checked against its schema (services/api/answer-check.ts).
    checkResponses: true,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.withDeps ? options.withDeps(db) : {}),
  });
  onTestFinished(async () => {
    await app.close();
    db.close();
  });
  await app.ready();
  return { app, db, accounts, lists, activeIndex, orgA, orgB, payPerList, payPerListWithAgreement, suspended };
}

/** Results cursors sealed with the key ring of the test's own database, as the platform's are (services/processes.ts). */
export const cursorSealOf = (db: DatabaseSync) => createCursorSeal({ keyring: createEmbeddedKeyRing(db) });

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * Asserts the contract's error shape (docs/decisions.md §5: `code` and a non-empty `message`,
 * `request_id` equal to the `Request-Id` header, `details` an object when present, nothing else)
 * and returns the error object.
 */
export function errorOf(response: { json: () => unknown; headers: Record<string, unknown> }) {
  const body = response.json() as { error: { code: string; message: string; request_id: string; details?: Record<string, unknown> } };
  expect(Object.keys(body)).toEqual(['error']);
  const { error } = body;
  expect(error.code).toMatch(/^[a-z_]+$/);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.request_id).toBe(response.headers['request-id']);
  if (error.details !== undefined) expect(error.details).toBeTypeOf('object');
  expect(Object.keys(error).every((key) => ['code', 'message', 'details', 'request_id'].includes(key))).toBe(true);
  return error;
}
