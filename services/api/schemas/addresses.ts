import { z } from 'zod';
import { boundedString, named } from './registry.ts';
import { ResolvedAddressSchema } from './resolved-address.ts';

const MAX_ADDRESSES_PER_RESOLVE = 100;

export const ResolveAddressesRequestSchema = named(
  'ResolveAddressesRequest',
  z.strictObject({
    addresses: z.array(boundedString()).max(MAX_ADDRESSES_PER_RESOLVE),
  }),
);
export type ResolveAddressesRequest = z.infer<typeof ResolveAddressesRequestSchema>;

export const ResolveAddressesResponseSchema = named(
  'ResolveAddressesResponse',
  z.strictObject({
    results: z.array(ResolvedAddressSchema).describe('One per address, in input order'),
  }),
);
