import type { CheckResult } from './types.ts';

/**
 * An organisation's own suppression list (DECISIONS §16): with `use_private_list`, a person is
 * checked against the national list and against the organisation's private list (the same
 * matching, policy and stop line), and a person on the private list — the private check comes out
 * `blocked` — is `blocked` whatever the national result. The match reported is the stronger of
 * the two (the higher `match.level`; the private one on a tie), so the reasons say why the person
 * is blocked and a stronger national match is never hidden. When the private check does not block,
 * the national result stands unchanged (a private household match does not make anyone `manual`).
 * Pure: values in, values out (docs/matching.md "Private lists").
 */
export function applyPrivateList(national: CheckResult, privateResult: CheckResult): CheckResult {
  if (privateResult.status !== 'blocked') return national;
  const privateLevel = privateResult.match.level ?? -1;
  const nationalLevel = national.match.level ?? -1;
  const stronger = nationalLevel > privateLevel ? national : privateResult;
  return { ...stronger, status: 'blocked' };
}
