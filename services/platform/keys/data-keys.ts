import { createHash, randomBytes } from 'node:crypto';
import type { DataKeyStore } from '../store/data-keys-port.ts';
import type { KeyRing } from '../store/keyring-port.ts';
import { open, seal } from './sealed-payload.ts';
import { ClassifiedError } from '../errors.ts';

/**
 * Per-job data keys (crypto-shredding; docs/privacy-and-proof.md "Forgetting"). Every
 * job's rows and results travel on the topics sealed with an AES-256 key of that job; the key is
 * stored wrapped by a master key (DataKeyStore), and deleting it (`forget`, on DELETE and at
 * delete_after) makes every copy of the job's messages unreadable at once.
 *
 * - `writerKey(job)`: this process's key for a job, made and stored on first use. Each process
 *   that writes a job's rows makes its own (no race to settle: every message names its key).
 * - `key(job, keyId)`: the key a message names; null once the job's keys were deleted. Keys are
 *   cached per process for `cacheMs` (default 60 s, the longest a deletion made by another process
 *   takes to reach this one's memory; the store and the log forget at once), and so is "gone".
 * - Master keys: `configured` (DATA_MASTER_KEYS, base64 32-byte keys: the first wraps, all
 *   unwrap), else the store's `data_master` keys (newest wraps, any unwraps; one is made on first
 *   use), the same pattern as the cursor secret.
 */
export interface DataKey {
  jobId: string;
  keyId: string;
  key: Buffer;
}

export interface JobDataKeys {
  writerKey(jobId: string): Promise<DataKey>;
  key(jobId: string, keyId: string): Promise<DataKey | null>;
  /** Deletes every key of the job from the store and from this process. */
  forget(jobId: string): Promise<void>;
}

/** The master key a wrapped data key names is unknown here (configuration lacks it). */
export class UnknownMasterKeyError extends ClassifiedError {
  constructor(kid: string) {
    super(`the master key ${kid} that wrapped a data key is not configured`);
    this.name = 'UnknownMasterKeyError';
  }
}

interface MasterKey {
  kid: string;
  key: Buffer;
}

export interface JobDataKeysDeps {
  store: DataKeyStore;
  keyring: KeyRing;
  /** DATA_MASTER_KEYS: comma-separated base64 of 32 bytes each; the first wraps. */
  configured?: string;
  cacheMs?: number;
  /** Entries kept in the cache at most. */
  cacheSize?: number;
  now?: () => Date;
}

/** The kid of a configured master key: derived from the key, so every process names it alike. */
export function masterKidOf(key: Buffer): string {
  return `cfg-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

export function parseMasterKeys(configured: string): MasterKey[] {
  return configured.split(',').map((s) => s.trim()).filter(Boolean).map((text) => {
    const key = Buffer.from(text, 'base64');
    if (key.length !== 32) throw new TypeError('a master key is 32 bytes, base64');
    return { kid: masterKidOf(key), key };
  });
}

const wrapAad = (jobId: string, keyId: string) => `data-key:${jobId}:${keyId}`;

export function createJobDataKeys(deps: JobDataKeysDeps): JobDataKeys {
  const now = deps.now ?? (() => new Date());
  const cacheMs = deps.cacheMs ?? 60_000;
  const cacheSize = deps.cacheSize ?? 4096;
  const configured = deps.configured ? parseMasterKeys(deps.configured) : null;
  let masters = new Map<string, MasterKey>((configured ?? []).map((m) => [m.kid, m]));
  let wrapping: MasterKey | null = configured?.[0] ?? null;
  /** Keys by `job:keyId`; a null key means "gone" (deleted). Insertion order = age (LRU-ish). */
  const cache = new Map<string, { key: DataKey | null; at: number }>();
  const inFlight = new Map<string, Promise<DataKey | null>>();
  const writers = new Map<string, Promise<DataKey>>();

  async function loadStoredMasters(): Promise<MasterKey[]> {
    const stored = (await deps.keyring.listKeys('data_master')).map((k) => ({ kid: k.kid, key: Buffer.from(k.secret, 'base64url') }));
    masters = new Map([...(configured ?? []), ...stored].map((m) => [m.kid, m]));
    return stored;
  }

  async function wrappingKey(): Promise<MasterKey> {
    if (wrapping) return wrapping;
    let stored = await loadStoredMasters();
    if (stored.length === 0) {
      await deps.keyring.addKey({
        purpose: 'data_master', kid: randomBytes(6).toString('base64url'), secret: randomBytes(32).toString('base64url'),
        created_at: now().toISOString(),
      });
      stored = await loadStoredMasters();
    }
    wrapping = stored[0];
    return wrapping;
  }

  async function masterFor(kid: string): Promise<MasterKey> {
    if (!masters.has(kid) && !configured) await loadStoredMasters();
    const master = masters.get(kid);
    if (!master) throw new UnknownMasterKeyError(kid);
    return master;
  }

  function remember(id: string, key: DataKey | null): void {
    cache.delete(id);
    cache.set(id, { key, at: Date.now() });
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
  }

  async function fetchKey(jobId: string, keyId: string): Promise<DataKey | null> {
    const stored = await deps.store.getKey(jobId, keyId);
    if (!stored) return null;
    const master = await masterFor(stored.master_kid);
    return { jobId, keyId, key: open(master.key, Buffer.from(stored.wrapped, 'base64url'), wrapAad(jobId, keyId)) };
  }

  async function makeWriterKey(jobId: string): Promise<DataKey> {
    const master = await wrappingKey();
    const keyId = randomBytes(8).toString('hex');
    const key = randomBytes(32);
    await deps.store.putKey({
      job_id: jobId, key_id: keyId, master_kid: master.kid,
      wrapped: seal(master.key, key, wrapAad(jobId, keyId)).toString('base64url'), created_at: now().toISOString(),
    });
    const made = { jobId, keyId, key };
    remember(`${jobId}:${keyId}`, made);
    return made;
  }

  return {
    writerKey(jobId) {
      let made = writers.get(jobId);
      if (!made) {
        made = makeWriterKey(jobId);
        writers.set(jobId, made);
        made.catch(() => writers.delete(jobId));
        if (writers.size > cacheSize) writers.delete(writers.keys().next().value as string);
      }
      return made;
    },

    async key(jobId, keyId) {
      const id = `${jobId}:${keyId}`;
      const cached = cache.get(id);
      if (cached && Date.now() - cached.at < cacheMs) return cached.key;
      let pending = inFlight.get(id);
      if (!pending) {
        pending = fetchKey(jobId, keyId).then((key) => {
          remember(id, key);
          return key;
        }).finally(() => inFlight.delete(id));
        inFlight.set(id, pending);
      }
      return pending;
    },

    async forget(jobId) {
      await deps.store.deleteJobKeys(jobId);
      writers.delete(jobId);
      for (const id of cache.keys()) if (id.startsWith(`${jobId}:`)) cache.set(id, { key: null, at: Date.now() });
    },
  };
}
