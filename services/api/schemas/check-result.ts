import { z } from 'zod';
import { named } from './registry.ts';
import { DeprecatedLevelSchema, ReasonSchema, StatusSchema } from './enums.ts';
import { MatchSchema } from './match.ts';
import { ResolvedAddressSchema } from './resolved-address.ts';
import { CompanyCheckResultSchema } from './companies.ts';
import { ListVersionRefSchema } from './list-version-ref.ts';

export const PhoneLookupSchema = named(
  'PhoneLookup',
  z.strictObject({
    outcome: z.enum(['found', 'unlisted', 'not_found']),
    name: z.string().optional(),
    address: z.string().optional(),
  }),
);

export const CheckResultSchema = named(
  'CheckResult',
  z.strictObject({
    id: z.string().nullable().describe('The input id'),
    status: StatusSchema,
    reasons: z.array(ReasonSchema),
    level: DeprecatedLevelSchema.nullable().meta({
      deprecated: true,
      description: 'Deprecated, use match.level. Where on the address the match was found.',
    }),
    match: MatchSchema,
    stop_level: z.int().min(0).max(5).describe('The stop line applied'),
    address: ResolvedAddressSchema.nullable(),
    phone_lookup: PhoneLookupSchema.nullable(),
    company: CompanyCheckResultSchema.optional()
      .describe('Check-job results of jobs with options.check_companies: the company check of a row that named a company (cvr or company_name)'),
    change: z.enum(['newly_blocked', 'released', 'changed_level']).nullable().optional()
      .describe('Only in results of a monitor re-check (source monitor): what changed for this contact since the ' +
        "monitor's last check; null: nothing. newly_blocked: blocked now, not before (or first check); released: " +
        'blocked before, not now; changed_level: same side of blocked, other match level'),
    list_version: ListVersionRefSchema.optional()
      .describe("Only when the match comes from another list version than the result set's: a person blocked by the " +
        "organisation's private list (use_private_list) names that version (source customer)"),
  }),
  'The answer for one person.',
);
