import { z } from 'zod';
import { boundedString, named } from './registry.ts';

const field = (description: string) => boundedString().optional().describe(description);

/**
 * One person to check (docs/contract.md PersonInput). No field is required by the schema: a person
 * without a name or readable address is still checked and gets a `no_name` / `address_unreadable`
 * result, not a 422. Unknown fields are rejected so that a misspelt column is not silently dropped.
 */
export const PersonInputSchema = named(
  'PersonInput',
  z.strictObject({
    id: field("Caller's own reference, echoed back in the result id"),
    name: field('Full name'),
    first_name: field('Given name(s)'),
    last_name: field('Surname'),
    address: field('Whole address as one string'),
    street: field('Street'),
    house_number: field('House number'),
    floor: field('Floor'),
    door: field('Door'),
    postal_code: field('Postal code'),
    city: field('City'),
    kvhx: field('Legacy address key, accepted for legacy clients'),
    phone: field('Phone number'),
  }),
  'One person to check. Give `name` or `first_name` + `last_name`, and `address` or its parts.',
);

/**
 * One row of a JSON or NDJSON check job: a PersonInput plus the company columns a file job maps
 * (`cvr`, `company_name`), read when the job asks for `options.check_companies` (docs/decisions.md §17).
 * `POST /v2/checks` keeps the strict PersonInput.
 */
export const JobPersonInputSchema = named(
  'JobPersonInput',
  PersonInputSchema.extend({
    cvr: field('Company CVR number (check_companies); a malformed one is a company not found'),
    company_name: field('Company name (check_companies), used when no CVR is given'),
  }),
  'One row of a check job: a PersonInput, plus `cvr` / `company_name` for company checks and `phone` for phone checks.',
);
