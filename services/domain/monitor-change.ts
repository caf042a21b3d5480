import type { CheckResult, Status } from './types.ts';

/**
 * What a monitor's re-check reports per contact (docs/decisions.md §16): the change of the contact's
 * verdict since the monitor's last completed check. Pure: values in, values out.
 *
 * - `newly_blocked`: blocked now, not blocked at the last check (or never checked before: the
 *   first check of a contact reports every blocked contact, so nobody blocked goes unreported);
 * - `released`: blocked at the last check, not blocked now;
 * - `changed_level`: the status stayed on the same side of "blocked" but the match level moved
 *   (e.g. 0 → 1, a household entry moved in; 5 → 4 raised from a previous address);
 * - null: nothing changed (or a first check of a contact that is not blocked).
 */
export type MonitorChange = 'newly_blocked' | 'released' | 'changed_level';

export const MONITOR_CHANGES: readonly MonitorChange[] = ['newly_blocked', 'released', 'changed_level'];

/** A contact's verdict at one check: what the next check compares against. */
export interface MonitorVerdict {
  status: Status;
  level: number | null;
}

export type MonitorChangeCounts = Record<MonitorChange, number>;

export function emptyChangeCounts(): MonitorChangeCounts {
  return { newly_blocked: 0, released: 0, changed_level: 0 };
}

export function verdictOf(result: Pick<CheckResult, 'status' | 'match'>): MonitorVerdict {
  return { status: result.status, level: result.match.level };
}

export function changeOf(previous: MonitorVerdict | null, current: MonitorVerdict): MonitorChange | null {
  const blockedNow = current.status === 'blocked';
  if (previous === null) return blockedNow ? 'newly_blocked' : null;
  const blockedBefore = previous.status === 'blocked';
  if (blockedNow && !blockedBefore) return 'newly_blocked';
  if (!blockedNow && blockedBefore) return 'released';
  return previous.level === current.level ? null : 'changed_level';
}
