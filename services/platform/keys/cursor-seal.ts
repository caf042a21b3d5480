import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { KeyRing } from '../store/keyring-port.ts';
import { PermanentError } from '../errors.ts';

/**
 * Results cursors made tamper-evident (docs/decisions.md §7: a forged cursor is 422). The store's cursor
 * (job-results.ts: the job and the last row, readable by anyone who base64-decodes it) is sealed
 * with an HMAC-SHA256 over the job id and that cursor: `<store cursor>.<kid>.<mac>`. An edited row
 * number, a cursor of another job or one made up fails the MAC, whatever the store would accept.
 *
 * The secret: `CURSOR_SECRET` when configured (every API process must share it), else the store's
 * newest `cursor` key (one is made on first use). Every stored key verifies, so two API processes
 * that each made a first key still accept each other's cursors.
 */
export interface CursorSeal {
  seal(jobId: string, storeCursor: string): Promise<string>;
  /** The store cursor inside `cursor`; throws InvalidSealError when it was not sealed here for this job. */
  open(jobId: string, cursor: string): Promise<string>;
}

export class InvalidSealError extends PermanentError {
  constructor() {
    super('cursor seal does not verify');
    this.name = 'InvalidSealError';
  }
}

interface Secret {
  kid: string;
  /**
   * The secret as a KeyObject, made once when the key is loaded: an HMAC over a raw Buffer imports
   * the key at every call (27 us; from a KeyObject 2 us, two per results page: docs/performance.md
   * "Measurements").
   */
  secret: KeyObject;
}

const MAC_BYTES = 16;
const SEALED = /^([A-Za-z0-9_-]{1,160})\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{22})$/;

export function createCursorSeal(deps: { keyring: KeyRing; configured?: string; now?: () => Date }): CursorSeal {
  const now = deps.now ?? (() => new Date());
  const configured: Secret | null = deps.configured ? { kid: 'cfg', secret: createSecretKey(Buffer.from(deps.configured, 'utf8')) } : null;
  let known = new Map<string, Secret>(configured ? [[configured.kid, configured]] : []);
  let signer: Secret | null = configured;
  let loadedAt = 0;

  async function load(): Promise<Secret[]> {
    loadedAt = Date.now();
    const stored = (await deps.keyring.listKeys('cursor')).map((k) => ({ kid: k.kid, secret: createSecretKey(Buffer.from(k.secret, 'base64url')) }));
    known = new Map([...(configured ? [configured] : []), ...stored].map((s) => [s.kid, s]));
    return stored;
  }

  async function signingSecret(): Promise<Secret> {
    if (signer) return signer;
    let stored = await load();
    if (stored.length === 0) {
      const kid = randomBytes(6).toString('base64url');
      await deps.keyring.addKey({ purpose: 'cursor', kid, secret: randomBytes(32).toString('base64url'), created_at: now().toISOString() });
      stored = await load();
    }
    signer = stored[0];
    return signer;
  }

  const mac = (key: Secret, jobId: string, storeCursor: string) =>
    createHmac('sha256', key.secret).update(`${jobId}.${storeCursor}`).digest().subarray(0, MAC_BYTES);

  return {
    async seal(jobId, storeCursor) {
      const key = await signingSecret();
      return `${storeCursor}.${key.kid}.${mac(key, jobId, storeCursor).toString('base64url')}`;
    },
    async open(jobId, cursor) {
      const match = SEALED.exec(cursor);
      if (!match) throw new InvalidSealError();
      const [, storeCursor, kid, given] = match;
      // A kid not seen yet may be another API process's first key: read the store again (at most
      // once a second, so made-up kids cannot turn every request into a store query).
      if (!known.has(kid) && Date.now() - loadedAt > 1000) await load();
      const key = known.get(kid);
      if (!key) throw new InvalidSealError();
      const expected = mac(key, jobId, storeCursor);
      const actual = Buffer.from(given, 'base64url');
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw new InvalidSealError();
      return storeCursor;
    },
  };
}
