import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson } from '../../../services/domain/index.ts';
import type { CheckOptions, CheckResult, ListEntry } from '../../../services/domain/types.ts';
import {
  BEYOND_CONTRACT_KINDS,
  VARIATION_KINDS,
  createRng,
  generateListEntries,
  generateSyntheticPeople,
  toListEntry,
  variantOf,
  variationApplies,
  type VariationKind,
} from '../../../services/synthetic/index.ts';
import { STREET_NAMES } from '../../../services/synthetic/danish-data.ts';

/**
 * Matching quality on a synthetic corpus (not a unit test of one rule): list members written the
 * way customers write people must never come out `allowed`, and people not on the list should
 * mostly come out level 0. The numbers per variation kind are printed so a change in matching
 * shows up as a change in the distribution, not only as a pass or fail.
 */

const LIST_SIZE = 30_000;
const PER_KIND = 800;
const NON_MEMBERS = 5_000;
const SEED = 'matching-quality';
const STANDARD: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };
const LEVELS = ['5', '4', '3', '2', '1', '0', 'null'] as const;
/**
 * A misspelt street is corrected only from 4 letters on and only when the closest street is
 * unambiguous (street-index.ts, check.ts); the kinds that can carry a slip may leave this share
 * allowed, and the cases are printed.
 */
const TYPO_ALLOWED_SHARE = 0.005;
const TYPO_KINDS: readonly VariationKind[] = ['street_typo', 'mixed'];
/** How much the street correction may add to the non-members' false-positive rate (level ≥ 1). */
const CORRECTION_FALSE_POSITIVE_MARGIN = 0.002;

const entries: ListEntry[] = [...generateListEntries(LIST_SIZE, SEED)];
const index = buildListIndex(entries);

interface KindStats {
  kind: VariationKind;
  count: number;
  allowed: number;
  previousAddress: number;
  levels: Record<(typeof LEVELS)[number], number>;
  /** A few allowed variants, for the failure message (synthetic people, no real data). */
  examples: string[];
}

function measure(kind: VariationKind, options: CheckOptions = STANDARD): KindStats {
  const rng = createRng(`${SEED}:${kind}`);
  const stats: KindStats = {
    kind,
    count: 0,
    allowed: 0,
    previousAddress: 0,
    levels: Object.fromEntries(LEVELS.map((l) => [l, 0])) as KindStats['levels'],
    examples: [],
  };
  // Every 13th entry: a spread over the list, current and previous addresses alike.
  for (let i = 0; i < entries.length && stats.count < PER_KIND; i += 13) {
    const entry = entries[i];
    if (!variationApplies(entry, kind)) continue;
    const person = variantOf(entry, rng, kind);
    const result: CheckResult = checkPerson(index, person, options);
    stats.count++;
    stats.levels[String(result.match.level) as (typeof LEVELS)[number]]++;
    if (result.match.previous_address) stats.previousAddress++;
    if (result.status === 'allowed') {
      stats.allowed++;
      if (stats.examples.length < 5) stats.examples.push(`${JSON.stringify(entry)} as ${JSON.stringify(person)}`);
    }
  }
  return stats;
}

function table(rows: KindStats[]): string {
  const header = ['kind', 'n', 'allowed', ...LEVELS.map((l) => `L${l}`), 'prev'];
  const lines = rows.map((r) => [
    r.kind,
    String(r.count),
    String(r.allowed),
    ...LEVELS.map((l) => `${((100 * r.levels[l]) / Math.max(1, r.count)).toFixed(1)}%`),
    String(r.previousAddress),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  return [header, ...lines].map((cols) => cols.map((c, i) => c.padEnd(widths[i])).join('  ')).join('\n');
}

describe('matching quality on a synthetic corpus', () => {
  it('the corpus is what it claims: list entries with previous addresses', () => {
    expect(index.size).toBe(LIST_SIZE);
    const previous = entries.filter((e) => e.previous).length;
    expect(previous / LIST_SIZE).toBeGreaterThan(0.06);
    expect(previous / LIST_SIZE).toBeLessThan(0.12);
  });

  it('no list member written with a variation the contract covers comes out allowed', () => {
    const rows = VARIATION_KINDS.map((kind) => measure(kind));
    const beyond = BEYOND_CONTRACT_KINDS.map((kind) => measure(kind));
    console.log(
      `Matching quality: ${LIST_SIZE} list entries, standard policy, stop level 1\n` +
        `${table(rows)}\n-- beyond docs/decisions.md §1 (measured, not required):\n${table(beyond)}`,
    );
    for (const row of rows) {
      expect(row.count, `${row.kind}: sample size`).toBeGreaterThanOrEqual(200);
      const message = `${row.kind} allowed:\n${row.examples.join('\n')}`;
      if (TYPO_KINDS.includes(row.kind)) {
        if (row.allowed > 0) console.log(message);
        expect(row.allowed / row.count, message).toBeLessThanOrEqual(TYPO_ALLOWED_SHARE);
      } else {
        expect(row.allowed, message).toBe(0);
      }
    }
    const exact = rows.find((r) => r.kind === 'exact')!;
    expect(exact.levels['5']).toBe(exact.count);
    expect(exact.previousAddress).toBeGreaterThan(0);
  });

  it('nor under the strict and bdq policies, nor at the highest stop level for exact and mixed spellings', () => {
    for (const policy of ['strict', 'bdq'] as const) {
      const mixed = measure('mixed', { ...STANDARD, policy });
      expect(mixed.allowed, `${policy}:\n${mixed.examples.join('\n')}`).toBe(0);
    }
    // At stop level 5 only a full name-and-unit match blocks: the exact spelling must reach it.
    const exactAt5 = measure('exact', { ...STANDARD, stopLevel: 5 });
    expect(exactAt5.allowed).toBe(0);
    // The register's form with a supplementary town name ("…, st., Skee, 4370 …"): read as a door
    // it was another unit, level 4, allowed at stop level 5.
    const townAt5 = measure('supplementary_town', { ...STANDARD, stopLevel: 5 });
    expect(townAt5.allowed, townAt5.examples.join('\n')).toBe(0);
  });

  it('people not on the list mostly come out level 0; the street correction adds almost nothing', () => {
    // generatePeople, with each person's own street kept to tell a right correction from a wrong one.
    const rng = createRng(`${SEED}:people-variants`);
    const levels = new Map<string, number>();
    let exactPositive = 0;
    let corrected = 0;
    let wronglyCorrected = 0;
    let wrongPositive = 0;
    for (const p of generateSyntheticPeople(NON_MEMBERS, `${SEED}:people`)) {
      const entry = toListEntry(p, p.current, false);
      const result = checkPerson(index, variantOf(entry, rng), STANDARD);
      const level = String(result.match.level);
      levels.set(level, (levels.get(level) ?? 0) + 1);
      // The same person written exactly as the list would: no street is ever corrected.
      if ((checkPerson(index, variantOf(entry, rng, 'exact'), STANDARD).match.level ?? 0) >= 1) exactPositive++;
      if (result.address?.confidence === 'corrected') {
        corrected++;
        if (result.address.street !== p.current.street) {
          wronglyCorrected++;
          if ((result.match.level ?? 0) >= 1) wrongPositive++;
        }
      }
    }
    const none = levels.get('0') ?? 0;
    const falsePositive = NON_MEMBERS - none;
    const named = [...levels].filter(([l]) => Number(l) >= 2).reduce((sum, [, n]) => sum + n, 0);
    const pct = (n: number) => `${((100 * n) / NON_MEMBERS).toFixed(2)}%`;
    console.log(
      `Non-members: ${NON_MEMBERS} people, level distribution ${JSON.stringify(Object.fromEntries(levels))}; ` +
        `false-positive rate (level ≥ 1) ${pct(falsePositive)} (the same people written exactly: ` +
        `${pct(exactPositive)}), with a name part (level ≥ 2) ${pct(named)}; street corrected for ` +
        `${pct(corrected)}, onto another street than their own ${pct(wronglyCorrected)} ` +
        `(level ≥ 1 there: ${pct(wrongPositive)})`,
    );
    expect(none / NON_MEMBERS).toBeGreaterThanOrEqual(0.9);
    expect(named / NON_MEMBERS).toBeLessThan(0.01);
    expect((falsePositive - exactPositive) / NON_MEMBERS).toBeLessThanOrEqual(CORRECTION_FALSE_POSITIVE_MARGIN);
    expect(wrongPositive / NON_MEMBERS).toBeLessThanOrEqual(CORRECTION_FALSE_POSITIVE_MARGIN);
  });

  it('people on a street the list does not know are rarely corrected onto a list street', () => {
    // The hard case for the correction: a real street of the postal code where no list member
    // lives, one or two letters away from a street that has list members ("Parkvej" / "Markvej").
    const known = new Map<string, Set<string>>();
    for (const entry of entries) {
      const street = /^(.+?) \d/.exec(entry.address!)![1];
      let streets = known.get(entry.postal_code!);
      if (streets === undefined) known.set(entry.postal_code!, (streets = new Set()));
      streets.add(street);
    }
    const rng = createRng(`${SEED}:unknown-streets`);
    let count = 0;
    let corrected = 0;
    let positive = 0;
    let named = 0;
    for (const p of generateSyntheticPeople(NON_MEMBERS, `${SEED}:unknown-streets`)) {
      const streets = known.get(p.current.postal_code) ?? new Set<string>();
      let street = rng.pick(STREET_NAMES);
      while (streets.has(street)) street = rng.pick(STREET_NAMES);
      const entry = toListEntry(p, { ...p.current, street }, false);
      const result = checkPerson(index, variantOf({ ...entry, kvhx: undefined }, rng), STANDARD);
      count++;
      if (result.address?.confidence === 'corrected') corrected++;
      if ((result.match.level ?? 0) >= 1) positive++;
      if ((result.match.level ?? 0) >= 2) named++;
    }
    const pct = (n: number) => `${((100 * n) / count).toFixed(2)}%`;
    console.log(
      `Non-members on a street unknown to the list: ${count} people; street corrected for ${pct(corrected)}, ` +
        `false-positive rate (level ≥ 1) ${pct(positive)} (0 without the correction), level ≥ 2 ${pct(named)}`,
    );
    // Measured 0.08 % corrected, none with a level; at national density 0.59 % (docs/matching.md).
    expect(corrected / count).toBeLessThan(0.01);
    expect(positive / count).toBeLessThanOrEqual(CORRECTION_FALSE_POSITIVE_MARGIN);
  });
});
