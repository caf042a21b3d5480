import { z } from 'zod';
import { CreateChecksRequestSchema, type CreateChecksRequest } from './schemas/checks.ts';
import { PersonInputSchema } from './schemas/person-input.ts';

/**
 * POST /v2/checks's body taken as it is when the schema would take it unchanged, without zod's
 * pass over it (docs/architecture.md "Synchronous checks"): for 1,000 people zod built a copy of
 * every person, 0.6-2.4 ms of a request and its garbage. What this accepts, the schema accepts
 * and gives back equal (test/unit/api/checks-body.test.ts holds the two side by side); anything
 * else, a valid body of another form included, goes to zod, which also words the 422.
 *
 * The rules are read from the schema itself, not restated: each person field's longest string and
 * the number of people. Should a field become anything but an optional string with a maximum
 * length, this module throws when loaded, rather than take what the schema would refuse.
 */

/**
 * Each PersonInput field's longest string. zod counts code points, the shortcut UTF-16 units (a
 * string is never fewer units than code points): a string of emoji near the limit goes to zod.
 */
function personFieldLimits(): Map<string, number> {
  const limits = new Map<string, number>();
  for (const [name, field] of Object.entries(PersonInputSchema.shape)) {
    const inner = field instanceof z.ZodOptional ? field.unwrap() : null;
    const checks = inner instanceof z.ZodString ? (inner.def.checks ?? []) : null;
    if (!inner || !(inner instanceof z.ZodString) || !checks || checks.length !== 1 || inner.maxLength === null) {
      throw new Error(`PersonInput.${name} is no longer an optional string with a maximum length: checks-body.ts must learn it`);
    }
    limits.set(name, inner.maxLength);
  }
  return limits;
}

/** The least and most people the schema takes. */
function peopleBounds(): { min: number; max: number } {
  const bounds: Record<string, unknown> = {};
  for (const check of CreateChecksRequestSchema.shape.people.def.checks ?? []) Object.assign(bounds, check._zod.def);
  const { minimum: min, maximum: max } = bounds;
  if (typeof min !== 'number' || typeof max !== 'number') throw new Error('CreateChecksRequest.people has no length bounds: checks-body.ts must learn it');
  return { min, max };
}

const PERSON_FIELDS = personFieldLimits();
const PEOPLE = peopleBounds();
/** The rest of the body (policy, stop level, private list): a few keys, left to zod. */
const OPTIONS_SCHEMA = CreateChecksRequestSchema.omit({ people: true });

function isPlainPerson(person: unknown): boolean {
  if (typeof person !== 'object' || person === null || Array.isArray(person)) return false;
  // A parsed JSON object: its own keys only, nothing inherited is enumerable.
  for (const key in person) {
    const longest = PERSON_FIELDS.get(key);
    const value = (person as Record<string, unknown>)[key];
    if (longest === undefined || typeof value !== 'string' || value.length > longest) return false;
  }
  return true;
}

/** The body as the route reads it when the schema takes it unchanged; null: let zod parse it. */
export function plainChecksRequest(input: unknown): CreateChecksRequest | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const { people, ...options } = input as Record<string, unknown>;
  if (!Array.isArray(people) || people.length < PEOPLE.min || people.length > PEOPLE.max) return null;
  for (const person of people) if (!isPlainPerson(person)) return null;
  const parsedOptions = OPTIONS_SCHEMA.safeParse(options);
  if (!parsedOptions.success) return null;
  return { people: people as CreateChecksRequest['people'], ...parsedOptions.data };
}
