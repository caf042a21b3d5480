import { decideCompany, type CompanyCheckResult, type CompanyInput, type CompanyRecord } from './company.ts';
import { phoneCheckResult, type DirectoryEntry } from './phone.ts';
import { testModeCheck, testModeCompany, testModeDirectoryEntry, TEST_REGISTER_SYNCED_AT } from './test-mode.ts';
import type { CheckOptions, CheckResult, PersonInput, Reason, Status } from './types.ts';

/**
 * One row of a check job (docs/decisions.md §17 "in jobs"): a person, and for company and phone checks
 * the mapped `cvr`, `company_name` and `phone` columns. The company fields exist in job rows only
 * (JSON/NDJSON job bodies and files); `POST /v2/checks` refuses them.
 */
export type JobRowInput = PersonInput & { cvr?: string; company_name?: string };

/** Which checks a job asked for (CheckJobOptions check_people / check_companies / check_phones). */
export interface JobChecks {
  people: boolean;
  companies: boolean;
  phones: boolean;
}

/**
 * What a row's checks read, as the job sees it: the list version it pinned, the company register
 * version it pinned and the phone directory's answers. Live and test mode differ only here.
 */
export interface RowLookups {
  checkPerson(person: PersonInput): CheckResult;
  findCompany(input: CompanyInput): CompanyRecord | null;
  /** `synced_at` of company results: the import time of the register version used. */
  companySyncedAt: string | null;
  /** The directory's entry for a number as the row wrote it; null: not found (or not a number). */
  phoneEntry(phone: string): DirectoryEntry | null;
}

/** The lookups of a test-mode job (docs/decisions.md §3): fixed answers, no list, register or directory is read. */
export function testRowLookups(options: CheckOptions): RowLookups {
  return {
    checkPerson: (person) => testModeCheck(person, options),
    findCompany: testModeCompany,
    companySyncedAt: TEST_REGISTER_SYNCED_AT,
    phoneEntry: testModeDirectoryEntry,
  };
}

/** The person fields of a row (everything a person check reads). */
const PERSON_FIELDS = [
  'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city', 'kvhx',
] as const satisfies ReadonlyArray<keyof PersonInput>;

const RESTRICTION: Readonly<Record<Status, number>> = { allowed: 0, manual: 1, blocked: 2 };

const given = (value: string | undefined): value is string => typeof value === 'string' && value.trim() !== '';

function personOf(row: JobRowInput): PersonInput {
  const person: PersonInput = {};
  if (row.id !== undefined) person.id = row.id;
  for (const field of PERSON_FIELDS) if (row[field] !== undefined) person[field] = row[field];
  return person;
}

function companyInputOf(row: JobRowInput): CompanyInput {
  return {
    ...(row.id !== undefined ? { id: row.id } : {}),
    ...(given(row.cvr) ? { cvr: row.cvr } : {}),
    ...(given(row.company_name) ? { name: row.company_name } : {}),
  };
}

/**
 * The one result of a job row: the checks the job asked for that the row gives something to
 * check (a person check needs a person field, a company check a `cvr` or `company_name`, a phone
 * check a `phone`), with the same domain code as `/v2/checks`, `/v2/company-checks` and
 * `/v2/phone-checks`. A row that gives nothing to any asked check still gets an answer, never
 * `allowed`: the first asked check of people, phones, companies runs on the empty row (`no_name`,
 * `phone_not_found`, or a company not found: all `manual`).
 *
 * Combined (docs/companies.md "Jobs"): `status` is the most restrictive of the checks that ran
 * (blocked > manual > allowed) and `reasons` the union, so counts and result files need nothing
 * new; `match`, `level` and `address` are those of the person check, else of the person the phone
 * directory named, else of a sole proprietorship's owner, else empty (level null). `phone_lookup`
 * is the phone check's; `company` (CompanyCheckResult) is present exactly when the company was
 * checked.
 */
export function checkJobRow(row: JobRowInput, checks: JobChecks, lookups: RowLookups, options: CheckOptions): CheckResult {
  const id = row.id ?? null;
  let runPerson = checks.people && PERSON_FIELDS.some((f) => given(row[f]));
  let runCompany = checks.companies && (given(row.cvr) || given(row.company_name));
  let runPhone = checks.phones && given(row.phone);
  if (!runPerson && !runCompany && !runPhone) {
    if (checks.people) runPerson = true;
    else if (checks.phones) runPhone = true;
    else runCompany = true;
  }

  const person = runPerson ? lookups.checkPerson(personOf(row)) : null;
  // A row without a number has none to find (test keys would take an empty text for a found one).
  const entry = runPhone && given(row.phone) ? lookups.phoneEntry(row.phone) : null;
  const phone = runPhone ? phoneCheckResult(id, entry, options, lookups.checkPerson) : null;
  let owner: CheckResult | null = null;
  let company: CompanyCheckResult | null = null;
  if (runCompany) {
    const input = companyInputOf(row);
    company = decideCompany(input, lookups.findCompany(input), lookups.companySyncedAt, (o) => (owner = lookups.checkPerson(o)));
  }

  const base: CheckResult = person ?? phone ?? (owner as CheckResult | null) ?? companyOnly(id, company as CompanyCheckResult, options);
  let status = base.status;
  const reasons: Reason[] = [...base.reasons];
  for (const part of [person, phone, company]) {
    if (!part || part === base) continue;
    if (RESTRICTION[part.status] > RESTRICTION[status]) status = part.status;
    for (const reason of part.reasons) if (!reasons.includes(reason)) reasons.push(reason);
  }
  return {
    ...base,
    id,
    status,
    reasons,
    phone_lookup: phone?.phone_lookup ?? null,
    ...(company ? { company } : {}),
  };
}

/** A company row without a person to show: the company's status and reasons, no match. */
function companyOnly(id: string | null, company: CompanyCheckResult, options: CheckOptions): CheckResult {
  return {
    id,
    status: company.status,
    reasons: [...company.reasons],
    level: null,
    match: { level: null, code: null, label: null, on: [], previous_address: false, approximate: false },
    stop_level: options.stopLevel,
    address: null,
    phone_lookup: null,
  };
}
