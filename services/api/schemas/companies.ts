import { z } from 'zod';
import { cvrProblem } from '../../domain/index.ts';
import { boundedString, named } from './registry.ts';
import { MatchPolicySchema, ReasonSchema, StatusSchema } from './enums.ts';
import { ListVersionRefSchema } from './list-version-ref.ts';

const MAX_COMPANIES_PER_CHECK = 1000;

/**
 * docs/contract.md CompanyInput. A CVR, when given, must be 8 digits (spaces, dashes and a `DK` prefix
 * allowed) passing the register's modulus-11 check, else the request is 422 at
 * `companies[i].cvr` (docs/companies.md: a malformed CVR is a caller's bug, caught before anything
 * is checked). An item needs a CVR or a name.
 */
export const CompanyInputSchema = named(
  'CompanyInput',
  z.strictObject({
    id: boundedString().optional().describe("Caller's own reference, echoed back in the result id"),
    cvr: boundedString().optional().describe('CVR number: 8 digits with the modulus-11 check (spaces, dashes, DK prefix allowed)'),
    name: boundedString().optional().describe('Company name; used only when no CVR is given, and found only when exactly one company has it'),
  }).superRefine((input, ctx) => {
    if (input.cvr !== undefined && input.cvr.trim() !== '') {
      const problem = cvrProblem(input.cvr);
      if (problem) ctx.addIssue({ code: 'custom', path: ['cvr'], params: { reason: problem } });
    } else if (input.name === undefined || input.name.trim() === '') {
      ctx.addIssue({ code: 'custom', path: [], params: { reason: 'company_unnamed' } });
    }
  }),
  'One company to check: give `cvr`, or `name` when the CVR is not known.',
);

export const CompanyCheckResultSchema = named(
  'CompanyCheckResult',
  z.strictObject({
    id: z.string().nullable(),
    cvr: z.string().nullable().describe('The CVR checked (8 digits), null when none was given and no company was found'),
    name: z.string().nullable().describe("The register's current name, else the name given"),
    status: StatusSchema,
    reasons: z.array(ReasonSchema).describe('company_protected, or the reasons of a sole proprietor owner; empty when not found'),
    company_form: z.string().nullable().describe("The register's current legal form (ENK, PMV, ApS, A/S, …); null when not found"),
    synced_at: z.string().nullable().describe('Import time of the register data used'),
  }),
  'The answer for one company (docs/decisions.md §17). Not found in the register: manual with no reason.',
);

export const CreateCompanyChecksRequestSchema = named(
  'CreateCompanyChecksRequest',
  z.strictObject({
    companies: z.array(CompanyInputSchema).min(1).max(MAX_COMPANIES_PER_CHECK),
    policy: MatchPolicySchema.optional().describe('For sole proprietors checked as people'),
    stop_level: z.int().min(1).max(5).optional().describe("For sole proprietors: overrides the organisation's stop line"),
  }),
);
export type CreateCompanyChecksRequest = z.infer<typeof CreateCompanyChecksRequestSchema>;

export const CreateCompanyChecksResponseSchema = named(
  'CreateCompanyChecksResponse',
  z.strictObject({
    list_version: ListVersionRefSchema.nullable().describe('The list version sole proprietors were checked against; null when none was needed and none is active'),
    results: z.array(CompanyCheckResultSchema).describe('One per company, in input order'),
  }),
);
export type CreateCompanyChecksResponse = z.infer<typeof CreateCompanyChecksResponseSchema>;
