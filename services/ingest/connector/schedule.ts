import { createHash } from 'node:crypto';

/**
 * A connector's schedule: time is cut into slots of `interval_seconds`, aligned to the Unix epoch,
 * and each slot is pulled at most once to an outcome. The job a slot makes has an id derived from
 * (connector, slot), so a process killed after creating the job and before recording the outcome
 * finds that job again on restart instead of making a second one: one job per slot, across
 * crashes. Pure: no clock, no I/O.
 */
export function slotOf(nowMs: number, intervalSeconds: number): number {
  return Math.floor(nowMs / (intervalSeconds * 1000));
}

/** When a slot begins (ms since the epoch). */
export function slotStartMs(slot: number, intervalSeconds: number): number {
  return slot * intervalSeconds * 1000;
}

/**
 * The job id of a connector's slot: an RFC 9562 version-8 UUID (custom) from SHA-256 of
 * `connector:<id>:<slot>`, so every process computes the same id and no two slots share one.
 * `attempt` > 0 (`…:<slot>:<attempt>`): the slot made again after a process was killed while
 * publishing the rows of the earlier attempt's job (pull.ts).
 */
export function slotJobId(connectorId: string, slot: number, attempt = 0): string {
  const name = attempt === 0 ? `connector:${connectorId}:${slot}` : `connector:${connectorId}:${slot}:${attempt}`;
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
