import { z } from 'zod';
import { named } from './registry.ts';

const part = () => z.string().nullable();

export const ResolvedAddressSchema = named(
  'ResolvedAddress',
  z.strictObject({
    input: z.string(),
    ok: z.boolean().describe('True when the text could be read as an address'),
    street: part(),
    house_number: part(),
    floor: part(),
    door: part(),
    postal_code: part(),
    city: part(),
    formatted: part(),
    confidence: z.enum(['exact', 'corrected', 'unresolved']),
  }),
  'How an address text was read (docs/decisions.md §13).',
);
