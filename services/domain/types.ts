/**
 * The contract's value types (docs/contract.md "Resources"), shared by every service.
 * Pure types: the zod schemas of the HTTP edge must agree with these (tests pin that).
 */
import type { CompanyCheckResult } from './company.ts';

export type Locale = 'da' | 'en';
export type MatchPolicy = 'standard' | 'strict' | 'bdq';
export type Status = 'allowed' | 'blocked' | 'manual';
export type MatchCode = 'none' | 'household' | 'surname' | 'given_name' | 'name_building' | 'name_address';
export type MatchOn = 'first_name' | 'last_name' | 'address' | 'unit';
/** Deprecated CheckResult.level: where on the address the match was found. */
export type DeprecatedLevel = 'unit' | 'floor' | 'building' | 'previous' | 'none';
export type Reason =
  | 'name_and_address'
  | 'name_and_unit'
  | 'household'
  | 'partial_name'
  | 'previous_address'
  | 'address_unreadable'
  | 'address_not_found'
  | 'no_name'
  | 'company_protected'
  | 'phone_unlisted'
  | 'phone_not_found'
  | 'list_not_ready';

/** One person as the caller sends it. Every field optional; strings only. */
export interface PersonInput {
  id?: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  address?: string;
  street?: string;
  house_number?: string;
  floor?: string;
  door?: string;
  postal_code?: string;
  city?: string;
  kvhx?: string;
  phone?: string;
}

/**
 * One record of a list version: a person at an address. A CPR list person has one record for the
 * current address and may have one more with `previous: true` (docs/decisions.md §12). Same field names
 * as PersonInput so that a customer's private list CSV maps onto it directly.
 */
export interface ListEntry extends Omit<PersonInput, 'id' | 'phone'> {
  previous?: boolean;
}

export interface Match {
  level: number | null;
  code: MatchCode | null;
  label: string | null;
  on: MatchOn[];
  previous_address: boolean;
  /**
   * True when the names agreed only through a tolerated slip or an initial (docs/matching.md
   * "Names"); additive, false for every other result.
   */
  approximate: boolean;
}

export interface ResolvedAddress {
  input: string;
  ok: boolean;
  street: string | null;
  house_number: string | null;
  floor: string | null;
  door: string | null;
  postal_code: string | null;
  city: string | null;
  formatted: string | null;
  confidence: 'exact' | 'corrected' | 'unresolved';
}

export interface PhoneLookup {
  outcome: 'found' | 'unlisted' | 'not_found';
  name?: string;
  address?: string;
}

export interface CheckResult {
  id: string | null;
  status: Status;
  reasons: Reason[];
  level: DeprecatedLevel | null;
  match: Match;
  stop_level: number;
  address: ResolvedAddress | null;
  phone_lookup: PhoneLookup | null;
  /** Job results of jobs with check_companies only: the row's company check (docs/decisions.md §17). */
  company?: CompanyCheckResult;
  /**
   * Only in the results of a monitor's re-check (source `monitor`): what changed for this contact
   * since the monitor's last check (domain/monitor-change.ts); null: nothing.
   */
  change?: 'newly_blocked' | 'released' | 'changed_level' | null;
  /**
   * The list version the match comes from when it is not the result set's: a person blocked by
   * the organisation's private list names that (`source: customer`) version (docs/matching.md
   * "Private lists"). Absent otherwise.
   */
  list_version?: ListVersionRef;
}

export interface ListVersionRef {
  id: string;
  source: 'cpr' | 'customer';
  published_on: string;
  activated_at?: string;
}

/** What a check needs besides the person: the policy, the stop line S (§2) and the locale. */
export interface CheckOptions {
  policy: MatchPolicy;
  stopLevel: number;
  locale: Locale;
}
