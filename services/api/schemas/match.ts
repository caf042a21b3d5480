import { z } from 'zod';
import { named } from './registry.ts';
import { MatchCodeSchema, MatchOnSchema } from './enums.ts';

export const MatchSchema = named(
  'Match',
  z.strictObject({
    level: z.int().min(0).max(5).nullable().describe('0..5; null when the address could not be read or no name was given'),
    code: MatchCodeSchema.nullable(),
    label: z.string().nullable().describe('Human text in the request locale'),
    on: z.array(MatchOnSchema).describe('What matched'),
    previous_address: z.boolean().describe('True when the match was on a previous address'),
    approximate: z.boolean().describe(
      'True when the names agreed only through a tolerated slip (one letter inserted, dropped, changed or two swapped, ' +
        'in a name of five or more letters) or an initial; `label` says so too. False otherwise.',
    ),
  }),
  'What was found on the list for one person.',
);
