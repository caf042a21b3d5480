import { z } from 'zod';
import { boundedString, named } from './registry.ts';
import { MatchPolicySchema } from './enums.ts';
import { CheckResultSchema } from './check-result.ts';
import { ListVersionRefSchema } from './list-version-ref.ts';

const MAX_PHONES_PER_CHECK = 500;

export const PhoneInputSchema = named(
  'PhoneInput',
  z.strictObject({
    id: boundedString().optional().describe("Caller's own reference, echoed back in the result id"),
    phone: boundedString().describe('With or without country code (+45 assumed), spaces and dashes allowed. A text that is no phone number gives phone_not_found'),
  }),
);

export const CreatePhoneChecksRequestSchema = named(
  'CreatePhoneChecksRequest',
  z.strictObject({
    phones: z.array(PhoneInputSchema).min(1).max(MAX_PHONES_PER_CHECK),
    policy: MatchPolicySchema.optional(),
    stop_level: z.int().min(1).max(5).optional().describe("Overrides the organisation's stop line for this call"),
  }),
);
export type CreatePhoneChecksRequest = z.infer<typeof CreatePhoneChecksRequestSchema>;

export const CreatePhoneChecksResponseSchema = named(
  'CreatePhoneChecksResponse',
  z.strictObject({
    list_version: ListVersionRefSchema,
    results: z.array(CheckResultSchema).describe('One per phone, in input order, each with phone_lookup'),
  }),
);
export type CreatePhoneChecksResponse = z.infer<typeof CreatePhoneChecksResponseSchema>;
