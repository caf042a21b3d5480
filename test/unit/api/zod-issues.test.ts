import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issuesFromZod } from '../../../services/api/zod-issues.ts';

/** The issues of `data` against `schema`, as the API words them in `locale`. */
function issuesOf(schema: z.ZodType, data: unknown, locale: 'da' | 'en') {
  const parsed = schema.safeParse(data);
  if (parsed.success) throw new Error('expected issues');
  return issuesFromZod(parsed.error.issues, data).map((issue) => `${issue.path}: ${issue.describe(locale)}`);
}

const schema = z.strictObject({
  name: z.string().min(2).max(5),
  tags: z.array(z.string()).min(1).max(2),
  count: z.number().int().min(1).max(9),
  kind: z.enum(['a', 'b']),
  email: z.email(),
});

describe('issuesFromZod: the schemas\' own bounds, types and options in words', () => {
  const tooBig = { name: 'abcdefg', tags: ['x', 'y', 'z'], count: 10, kind: 'c', email: 'nope' };
  const tooSmall = { name: 'a', tags: [], count: 0, kind: 'a', email: 'a@example.org' };

  it('in English', () => {
    expect(issuesOf(schema, tooBig, 'en')).toEqual([
      'name: Must be at most 5 characters.',
      'tags: Must have at most 2 items.',
      'count: Must be at most 9.',
      'kind: Must be one of "a", "b".',
      'email: Invalid format (email).',
    ]);
    expect(issuesOf(schema, tooSmall, 'en')).toEqual([
      'name: Must be at least 2 characters.',
      'tags: Must have at least 1 items.',
      'count: Must be at least 1.',
    ]);
  });

  it('in Danish', () => {
    expect(issuesOf(schema, tooBig, 'da')).toEqual([
      'name: Må højst være 5 tegn.',
      'tags: Skal have højst 2 elementer.',
      'count: Skal være højst 9.',
      'kind: Skal være en af "a", "b".',
      'email: Ugyldigt format (email).',
    ]);
    expect(issuesOf(schema, tooSmall, 'da')).toEqual([
      'name: Må mindst være 2 tegn.',
      'tags: Skal have mindst 1 elementer.',
      'count: Skal være mindst 1.',
    ]);
  });

  it('names a wrong type, a missing field and an unknown one', () => {
    const data = { name: 3, tags: ['x'], count: 1, kind: 'a', extra: true };
    expect(issuesOf(schema, data, 'en')).toEqual(['name: Must be a string.', 'email: Is required.', 'extra: Unknown field.']);
    expect(issuesOf(schema, data, 'da')).toEqual(['name: Skal være tekst.', 'email: Skal udfyldes.', 'extra: Ukendt felt.']);
  });
});
