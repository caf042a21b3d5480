import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { PersonInput } from '../../domain/types.ts';

/**
 * A monitor's contacts at rest (docs/monitors.md "Contacts at rest"): each block of people is
 * sealed with AES-256-GCM under the monitor's own data key (fresh 12-byte IV per block, the
 * monitor and block named in the additional data so a block cannot be moved to another place);
 * deleting the monitor deletes the key, so anything of the blocks a store has not yet physically
 * removed (ClickHouse parts before a merge) can no longer be read.
 *
 * A contact's key (the "same person" across replacements) is an HMAC-SHA256 of its fields under
 * the same data key: stable while the monitor lives, meaningless without the key.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function newDataKey(): string {
  return randomBytes(32).toString('base64');
}

function keyBytes(dataKey: string): Buffer {
  const key = Buffer.from(dataKey, 'base64');
  if (key.length !== 32) throw new Error('a monitor data key is 32 bytes');
  return key;
}

export function sealContacts(dataKey: string, where: string, people: PersonInput[]): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(dataKey), iv);
  cipher.setAAD(Buffer.from(where));
  const body = Buffer.concat([cipher.update(JSON.stringify(people), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function openContacts(dataKey: string, where: string, sealed: string): PersonInput[] {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(dataKey), bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(where));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  return JSON.parse(text) as PersonInput[];
}

/** Where a block lives, as the additional authenticated data of its seal. */
export function blockPlace(monitorId: string, generation: number, block: number): string {
  return `${monitorId}/${generation}/${block}`;
}

const PERSON_FIELDS = [
  'id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city', 'kvhx', 'phone',
] as const;

/** The contact key: the same fields (whatever their order in the input) give the same key. */
export function contactKey(dataKey: string, person: PersonInput): string {
  const hmac = createHmac('sha256', keyBytes(dataKey));
  for (const field of PERSON_FIELDS) hmac.update(`${field}\u0000${person[field] ?? ''}\u0001`);
  return hmac.digest('base64url').slice(0, 22);
}
