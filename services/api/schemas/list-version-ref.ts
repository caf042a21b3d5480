import { z } from 'zod';
import { named } from './registry.ts';

export const ListVersionRefSchema = named(
  'ListVersionRef',
  z.strictObject({
    id: z.uuid(),
    source: z.enum(['cpr', 'customer']),
    published_on: z.iso.date().describe('Date the list was published'),
    activated_at: z.iso.datetime({ offset: true }).optional().describe('When the version was activated'),
  }),
  'The list version a result set was checked against.',
);
