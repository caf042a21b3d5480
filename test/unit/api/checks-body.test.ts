import { describe, expect, it } from 'vitest';
import { plainChecksRequest } from '../../../services/api/checks-body.ts';
import { CreateChecksRequestSchema } from '../../../services/api/schemas/checks.ts';
import { PersonInputSchema } from '../../../services/api/schemas/person-input.ts';

/**
 * The shortcut of POST /v2/checks's body (services/api/checks-body.ts, docs/architecture.md
 * "Synchronous checks") against the schema it stands in for: on seeded bodies, valid and all but
 * valid, it takes only bodies the schema takes, and gives them back equal to the schema's output;
 * every other body is left to zod.
 */

const FIELDS = Object.keys(PersonInputSchema.shape);

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Seeded bodies: half of them valid (any field order, strings up to the limit), half with
 * defects sprinkled in (odd values, unknown keys, strings past the limit, bad options, sizes).
 */
function bodies(seed: number, count: number): unknown[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const VALID_TEXTS = ['', 'Søren Kjær', 'Vestergade 12, 2. tv', 'x'.repeat(199), 'x'.repeat(200), '😀'.repeat(100)];
  const ANY_TEXTS = [...VALID_TEXTS, 'x'.repeat(201), '😀'.repeat(101), '😀'.repeat(201)];
  const oddValue = () => pick<unknown>([null, 1, true, {}, [], ['a'], { a: 'b' }]);
  const person = (valid: boolean): unknown => {
    if (!valid && random() < 0.03) return pick<unknown>([null, 'Søren', 7, [], [{ name: 'a' }]]);
    const fields = FIELDS.filter(() => random() < 0.4);
    // Any order: the schema gives its own order back, the shortcut the caller's.
    fields.sort(() => random() - 0.5);
    const out: Record<string, unknown> = {};
    for (const field of fields) out[field] = !valid && random() < 0.05 ? oddValue() : pick(valid ? VALID_TEXTS : ANY_TEXTS);
    if (!valid && random() < 0.05) out[pick(['Name', 'adresse', 'cvr', 'previous', 'constructor'])] = pick(VALID_TEXTS);
    return out;
  };
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const valid = random() < 0.5;
    const size = valid ? (random() < 0.05 ? 1000 : pick([1, 2, 3, 10, 50])) : pick([0, 1, 2, 3, 10, 1001]);
    const body: Record<string, unknown> = {};
    if (valid || random() > 0.05) body.people = !valid && random() < 0.05 ? oddValue() : Array.from({ length: size }, () => person(valid));
    if (random() < 0.3) body.policy = pick<unknown>(valid ? ['standard', 'strict', 'bdq'] : ['standard', 'Standard', '', null, 1]);
    if (random() < 0.3) body.stop_level = pick<unknown>(valid ? [1, 2, 3, 4, 5] : [3, 0, 6, 2.5, '3', null]);
    if (random() < 0.3) body.use_private_list = pick<unknown>(valid ? [true, false] : [true, 'true', 0, null]);
    if (!valid && random() < 0.1) body[pick(['People', 'options', 'list'])] = pick(VALID_TEXTS);
    out.push(!valid && random() < 0.02 ? pick<unknown>([null, [], 'people', 3]) : body);
  }
  return out;
}

/** True when some string of the body is longer than 200 UTF-16 units (the limit, docs/decisions.md §11). */
function longerInUnitsThanAllowed(value: unknown): boolean {
  if (typeof value === 'string') return value.length > 200;
  if (value !== null && typeof value === 'object') return Object.values(value).some(longerInUnitsThanAllowed);
  return false;
}

describe('POST /v2/checks body shortcut', () => {
  it('takes the bodies the schema takes (strings of emoji near the limit aside), and gives them back equal to the schema\'s output', () => {
    let taken = 0;
    let refused = 0;
    for (const body of bodies(21, 1000)) {
      const plain = plainChecksRequest(body);
      const parsed = CreateChecksRequestSchema.safeParse(body);
      if (plain !== null) {
        expect(parsed.success, JSON.stringify(body).slice(0, 300)).toBe(true);
        expect(plain).toEqual(parsed.data);
        taken++;
      } else {
        // zod counts a string's length in code points, the shortcut in UTF-16 units: a string of
        // emoji within the limit may be long for the shortcut, never the other way round.
        if (parsed.success) expect(longerInUnitsThanAllowed(body), JSON.stringify(body).slice(0, 300)).toBe(true);
        refused++;
      }
    }
    // Both kinds were met often enough to mean something.
    expect(taken).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });

  it('takes a person as sent (no copy), and a body of 1,000 people with every field at its longest', () => {
    const person = Object.fromEntries(FIELDS.map((field) => [field, 'æ'.repeat(200)]));
    const body = { people: Array.from({ length: 1000 }, () => ({ ...person })), stop_level: 2 };
    const plain = plainChecksRequest(body);
    expect(plain?.people[0]).toBe(body.people[0]);
    expect(plain).toEqual(CreateChecksRequestSchema.parse(body));
  });
});
