import { z } from 'zod';
import { named } from './registry.ts';

export const StatusSchema = named(
  'Status',
  z.enum(['allowed', 'blocked', 'manual']),
  'allowed: may be contacted; blocked: must not be contacted; manual: must be checked manually.',
);

export const MatchPolicySchema = named(
  'MatchPolicy',
  z.enum(['standard', 'strict', 'bdq']),
  'How a match level becomes a status (docs/decisions.md §2). Default `standard`.',
);

export const ReasonSchema = named(
  'Reason',
  z.enum([
    'name_and_address',
    'name_and_unit',
    'household',
    'partial_name',
    'previous_address',
    'address_unreadable',
    'address_not_found',
    'no_name',
    'company_protected',
    'phone_unlisted',
    'phone_not_found',
    'list_not_ready',
  ]),
);

export const MatchCodeSchema = z.enum(['none', 'household', 'surname', 'given_name', 'name_building', 'name_address']);
export const MatchOnSchema = z.enum(['first_name', 'last_name', 'address', 'unit']);
export const DeprecatedLevelSchema = z.enum(['unit', 'floor', 'building', 'previous', 'none']);
