import { z } from 'zod';
import { named } from './registry.ts';
import { MatchPolicySchema } from './enums.ts';
import { PersonInputSchema } from './person-input.ts';
import { CheckResultSchema } from './check-result.ts';
import { ListVersionRefSchema } from './list-version-ref.ts';

const MAX_PEOPLE_PER_CHECK = 1000;

export const CreateChecksRequestSchema = named(
  'CreateChecksRequest',
  z.strictObject({
    people: z.array(PersonInputSchema).min(1).max(MAX_PEOPLE_PER_CHECK),
    policy: MatchPolicySchema.optional(),
    stop_level: z.int().min(1).max(5).optional().describe("Overrides the organisation's stop line for this call"),
    use_private_list: z.boolean().optional().describe(
      "Default false. Also check against the organisation's own active private list (source customer); a person on it is blocked " +
      'whatever the national result (422 when the organisation has no active private list). Test keys: accepted, no effect.',
    ),
  }),
);
export type CreateChecksRequest = z.infer<typeof CreateChecksRequestSchema>;

export const CreateChecksResponseSchema = named(
  'CreateChecksResponse',
  z.strictObject({
    list_version: ListVersionRefSchema,
    results: z.array(CheckResultSchema).describe('One per person, in input order'),
  }),
);
export type CreateChecksResponse = z.infer<typeof CreateChecksResponseSchema>;
