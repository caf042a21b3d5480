import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  CheckResultSchema,
  ListVersionRefSchema,
  type MatchPolicySchema,
  type MatchSchema,
  type PersonInputSchema,
  type ReasonSchema,
  ResolvedAddressSchema,
  type StatusSchema,
} from '../../../services/api/schemas/index.ts';
import { resolveAddressText, TEST_LIST_VERSION, testModeCheck } from '../../../services/domain/index.ts';
import type {
  CheckResult,
  ListVersionRef,
  Match,
  MatchPolicy,
  PersonInput,
  Reason,
  ResolvedAddress,
  Status,
} from '../../../services/domain/types.ts';

/**
 * The zod schemas of the HTTP edge and the domain's types must describe the same values. The
 * `expectTypeOf` lines are checked by `npm run typecheck`; the runtime lines check that what the
 * domain produces passes the response schemas.
 */
describe('API schemas agree with services/domain/types.ts', () => {
  it('at the type level', () => {
    expectTypeOf<z.infer<typeof PersonInputSchema>>().toEqualTypeOf<PersonInput>();
    expectTypeOf<z.infer<typeof MatchSchema>>().toEqualTypeOf<Match>();
    expectTypeOf<z.infer<typeof ResolvedAddressSchema>>().toEqualTypeOf<ResolvedAddress>();
    expectTypeOf<z.infer<typeof ListVersionRefSchema>>().toEqualTypeOf<ListVersionRef>();
    expectTypeOf<z.infer<typeof CheckResultSchema>>().toEqualTypeOf<CheckResult>();
    expectTypeOf<z.infer<typeof StatusSchema>>().toEqualTypeOf<Status>();
    expectTypeOf<z.infer<typeof MatchPolicySchema>>().toEqualTypeOf<MatchPolicy>();
    expectTypeOf<z.infer<typeof ReasonSchema>>().toEqualTypeOf<Reason>();
  });

  it('at run time, for what the domain produces', () => {
    const surnames = ['Robinson', 'Bygning', 'Fornavn', 'Efternavn', 'Husstand', 'Andersen'];
    for (const policy of ['standard', 'strict', 'bdq'] as const) {
      for (const locale of ['da', 'en'] as const) {
        for (const surname of surnames) {
          const result = testModeCheck({ id: 'x', name: `Anne ${surname}`, address: 'Vestergade 12, 2. tv, 8000 Aarhus C' }, { policy, stopLevel: 1, locale });
          expect(CheckResultSchema.parse(result)).toEqual(result);
        }
        for (const person of [{ name: 'Anne Robinson', address: '?' }, { address: 'Vestergade 1, 8000 Aarhus C' }, {}]) {
          const result = testModeCheck(person, { policy, stopLevel: 5, locale });
          expect(CheckResultSchema.safeParse(result).success).toBe(true);
        }
      }
    }
    expect(ListVersionRefSchema.parse(TEST_LIST_VERSION)).toEqual(TEST_LIST_VERSION);
    for (const text of ['Gl. Kongevej 12A, 3. tv, 1610 København V', '?', '']) {
      expect(ResolvedAddressSchema.safeParse(resolveAddressText(text)).success).toBe(true);
    }
  });
});
