import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AccountStore, Organisation } from '../platform/store/accounts-port.ts';
import { PermanentError } from '../platform/errors.ts';

/**
 * Organisation fields as the admin tool (and the demo seed) accept them, with the defaults of
 * docs/decisions.md §2, §8 and §10. One schema, used for create and (all optional) for update.
 */
const organisationFieldsSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  stop_level: z.number().int().min(1).max(5).default(1),
  plan: z.enum(['annual', 'pay_per_list']).default('annual'),
  api_agreement: z.boolean().default(false),
  retention_days: z.number().int().min(1).max(90).default(30),
  addons: z.array(z.enum(['phone', 'company'])).default([]).transform((a) => [...new Set(a)].sort()),
});

export type OrganisationFields = z.input<typeof organisationFieldsSchema>;

const organisationPatchSchema = z.object({
  name: organisationFieldsSchema.shape.name.optional(),
  stop_level: z.number().int().min(1).max(5).optional(),
  plan: z.enum(['annual', 'pay_per_list']).optional(),
  api_agreement: z.boolean().optional(),
  suspended: z.boolean().optional(),
  retention_days: z.number().int().min(1).max(90).optional(),
  addons: z.array(z.enum(['phone', 'company'])).transform((a) => [...new Set(a)].sort()).optional(),
});

export type OrganisationPatch = z.input<typeof organisationPatchSchema>;

export class AdminInputError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'AdminInputError';
  }
}

export class AdminNotFoundError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'AdminNotFoundError';
  }
}

/** The organisation `id`, or the one not-found error every admin command gives for it. */
export async function existingOrganisation(accounts: Pick<AccountStore, 'getOrganisation'>, id: string): Promise<Organisation> {
  const org = await accounts.getOrganisation(id);
  if (!org) throw new AdminNotFoundError(`organisation ${id} does not exist`);
  return org;
}

function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`);
  throw new AdminInputError(problems.join('; '));
}

export async function createOrganisation(
  accounts: AccountStore,
  fields: OrganisationFields,
  now: Date = new Date(),
): Promise<Organisation> {
  const valid = parseOrThrow(organisationFieldsSchema, fields);
  const org: Organisation = {
    id: randomUUID(),
    ...valid,
    addons: valid.addons,
    suspended: false,
    created_at: now.toISOString(),
  };
  await accounts.createOrganisation(org);
  return org;
}

export async function updateOrganisation(
  accounts: AccountStore,
  id: string,
  patch: OrganisationPatch,
): Promise<Organisation> {
  const valid = parseOrThrow(organisationPatchSchema, patch);
  if (Object.values(valid).every((v) => v === undefined)) {
    throw new AdminInputError('nothing to update: give at least one field');
  }
  const updated = await accounts.updateOrganisation(id, valid);
  if (!updated) throw new AdminNotFoundError(`organisation ${id} does not exist`);
  return updated;
}
