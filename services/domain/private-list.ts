import type { CheckResult, ListVersionRef } from './types.ts';

/**
 * An organisation's own suppression list (docs/decisions.md §16): with `use_private_list`, a person is
 * checked against the national list and against the organisation's private list (the same
 * matching, policy and stop line), and a person on the private list — the private check comes out
 * `blocked` — is `blocked` whatever the national result. The match reported is the stronger of
 * the two (the higher `match.level`; the private one on a tie), so the reasons say why the person
 * is blocked and a stronger national match is never hidden. When the private check does not block,
 * the national result stands unchanged (a private household match does not make anyone `manual`).
 * A result whose match is the private list's names `privateVersion` as its `list_version`: the
 * result set names the national version, and the person was found on the other one.
 * Pure: values in, values out (docs/matching.md "Private lists").
 */
export function applyPrivateList(national: CheckResult, privateResult: CheckResult, privateVersion: ListVersionRef): CheckResult {
  if (privateResult.status !== 'blocked') return national;
  const privateLevel = privateResult.match.level ?? -1;
  const nationalLevel = national.match.level ?? -1;
  if (nationalLevel > privateLevel) return { ...national, status: 'blocked' };
  return { ...privateResult, status: 'blocked', list_version: privateVersion };
}
