import { canonicalCvr } from './cvr.ts';
import { normalizeText } from './normalize.ts';
import type { CheckResult, PersonInput, Reason, Status } from './types.ts';

/**
 * Company checks (DECISIONS §17): a company of the register, its advertising protection and, for
 * a sole proprietorship, its owner checked against the Robinson list as a person.
 */

/** One company of a register version, as the importer keeps it (only current values). */
export interface CompanyRecord {
  cvr: string;
  name: string;
  /** The register's short form code: `ENK`, `PMV`, `ApS`, `A/S`, `I/S`, … */
  form: string;
  /** `reklamebeskyttet`: the company declined advertising. */
  protected: boolean;
  /** The owner, only for a sole proprietorship (soleOwnerOf); null otherwise. */
  owner: { name: string; address: string } | null;
}

/** What the caller sends (api-v2.md CompanyInput). */
export interface CompanyInput {
  id?: string;
  cvr?: string;
  name?: string;
}

/** api-v2.md CompanyCheckResult. */
export interface CompanyCheckResult {
  id: string | null;
  cvr: string | null;
  name: string | null;
  status: Status;
  reasons: Reason[];
  company_form: string | null;
  synced_at: string | null;
}

/**
 * §17: `ENK` (enkeltmandsvirksomhed) always, `PMV` (personligt ejet mindre virksomhed) only with
 * exactly one owner; any other form, or a PMV with several owners, is not a person.
 */
export function soleOwnerOf<T>(form: string, owners: readonly T[]): T | null {
  if (owners.length === 0) return null;
  if (form === 'ENK') return owners[0];
  if (form === 'PMV' && owners.length === 1) return owners[0];
  return null;
}

/** Lookups of one register version. Names are keyed folded (normalizeText); a shared name is ambiguous. */
export interface CompanyIndex {
  byCvr: Map<string, CompanyRecord>;
  /** Folded name → the one company of that name, or null when several share it. */
  byName: Map<string, CompanyRecord | null>;
  size: number;
}

export function createCompanyIndexBuilder(): { add(record: CompanyRecord): void; build(): CompanyIndex } {
  const byCvr = new Map<string, CompanyRecord>();
  const byName = new Map<string, CompanyRecord | null>();
  return {
    add(record) {
      byCvr.set(record.cvr, record);
      const key = normalizeText(record.name);
      byName.set(key, byName.has(key) ? null : record);
    },
    build: () => ({ byCvr, byName, size: byCvr.size }),
  };
}

/** The register's company for an input: by CVR when given, else by name when exactly one has it. */
export function findCompany(index: CompanyIndex, input: CompanyInput): CompanyRecord | null {
  if (typeof input.cvr === 'string' && input.cvr.trim() !== '') {
    const cvr = canonicalCvr(input.cvr);
    return cvr === null ? null : index.byCvr.get(cvr) ?? null;
  }
  if (typeof input.name === 'string' && input.name.trim() !== '') {
    return index.byName.get(normalizeText(input.name)) ?? null;
  }
  return null;
}

/**
 * The decision for one company. Not found (unknown CVR, a name that is unknown or shared): `manual`
 * with no reason, since nothing says the company may be contacted. Protected: `blocked` with
 * `company_protected` (and the owner's reasons as well when a sole owner is also on the list).
 * A sole proprietorship takes its owner's status and reasons. Otherwise `allowed`.
 * `checkOwner` is the person check against the list version in use (live or test).
 */
export function decideCompany(
  input: CompanyInput, company: CompanyRecord | null, syncedAt: string | null,
  checkOwner: (owner: PersonInput) => CheckResult,
): CompanyCheckResult {
  const id = typeof input.id === 'string' ? input.id : null;
  const writtenCvr = typeof input.cvr === 'string' ? canonicalCvr(input.cvr) ?? input.cvr : null;
  if (!company) {
    return {
      id, cvr: writtenCvr, name: typeof input.name === 'string' ? input.name : null,
      status: 'manual', reasons: [], company_form: null, synced_at: syncedAt,
    };
  }
  const base = { id, cvr: company.cvr, name: company.name, company_form: company.form, synced_at: syncedAt };
  const owner = company.owner ? checkOwner({ name: company.owner.name, address: company.owner.address }) : null;
  if (company.protected) {
    const ownerReasons = owner && owner.status === 'blocked' ? owner.reasons : [];
    return { ...base, status: 'blocked', reasons: ['company_protected', ...ownerReasons] };
  }
  if (owner) return { ...base, status: owner.status, reasons: owner.reasons };
  return { ...base, status: 'allowed', reasons: [] };
}
