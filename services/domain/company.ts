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

/**
 * Lookups of one register version, compact because every API process and matcher holds a whole
 * register (2,000,000 companies): each company is one packed string (fields joined by U+001F),
 * found by its CVR as an integer key, and by name through a 32-bit hash of the folded name. Hash
 * collisions between different names go to a small overflow map keyed by the folded name itself,
 * and a hit is confirmed against the company's own name, so a collision never finds the wrong
 * company. A name several companies share is ambiguous (AMBIGUOUS). About a third of the memory
 * of one object and two string-keyed maps per company (docs/companies.md "Performance").
 */
export interface CompanyIndex {
  size: number;
  cvrSlots: Map<number, number>;
  nameSlots: Map<number, number>;
  overflow: Map<string, number>;
  packed: string[];
}

const SEP = '\u001f';
const AMBIGUOUS = -1;
/** In nameSlots: more than one name has this hash; look in `overflow`. */
const COLLIDED = -2;

function pack(r: CompanyRecord): string {
  return [r.cvr, r.name, r.form, r.protected ? '1' : '', r.owner?.name ?? '', r.owner?.address ?? '', r.owner ? '1' : ''].join(SEP);
}

function unpack(packed: string): CompanyRecord {
  const [cvr, name, form, prot, ownerName, ownerAddress, hasOwner] = packed.split(SEP);
  return { cvr, name, form, protected: prot === '1', owner: hasOwner === '1' ? { name: ownerName, address: ownerAddress } : null };
}

function nameOf(packed: string): string {
  const from = packed.indexOf(SEP) + 1;
  return packed.slice(from, packed.indexOf(SEP, from));
}

/** FNV-1a over UTF-16 code units. */
function hashName(folded: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < folded.length; i++) {
    h ^= folded.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function createCompanyIndexBuilder(): { add(record: CompanyRecord): void; build(): CompanyIndex } {
  const packed: string[] = [];
  const cvrSlots = new Map<number, number>();
  const nameSlots = new Map<number, number>();
  const overflow = new Map<string, number>();
  /** The folded name behind an AMBIGUOUS hash (so a different name with that hash is told apart). */
  const ambiguousNames = new Map<number, string>();
  let size = 0;

  function addName(folded: string, slot: number): void {
    if (overflow.has(folded)) {
      overflow.set(folded, AMBIGUOUS);
      return;
    }
    const hash = hashName(folded);
    const existing = nameSlots.get(hash);
    if (existing === undefined) {
      nameSlots.set(hash, slot);
      return;
    }
    if (existing === COLLIDED) {
      overflow.set(folded, slot);
      return;
    }
    const existingName = existing === AMBIGUOUS ? (ambiguousNames.get(hash) as string) : normalizeText(nameOf(packed[existing]));
    if (existingName === folded) {
      nameSlots.set(hash, AMBIGUOUS);
      ambiguousNames.set(hash, folded);
      return;
    }
    // Two different names share the hash: both go to the overflow map, keyed by the name itself.
    nameSlots.set(hash, COLLIDED);
    ambiguousNames.delete(hash);
    overflow.set(existingName, existing);
    overflow.set(folded, slot);
  }

  return {
    add(record) {
      const key = Number(record.cvr);
      if (cvrSlots.has(key)) return; // a CVR listed twice in an extract: the first record counts
      const slot = packed.length;
      packed.push(pack(record));
      cvrSlots.set(key, slot);
      size += 1;
      addName(normalizeText(record.name), slot);
    },
    build: () => {
      ambiguousNames.clear();
      return { size, cvrSlots, nameSlots, overflow, packed };
    },
  };
}

function byName(index: CompanyIndex, folded: string): CompanyRecord | null {
  const viaOverflow = index.overflow.get(folded);
  if (viaOverflow !== undefined) return viaOverflow === AMBIGUOUS ? null : unpack(index.packed[viaOverflow]);
  const slot = index.nameSlots.get(hashName(folded));
  if (slot === undefined || slot < 0) return null;
  const packed = index.packed[slot];
  // Another name with the same hash is not this company.
  return normalizeText(nameOf(packed)) === folded ? unpack(packed) : null;
}

/** The register's company for an input: by CVR when given, else by name when exactly one has it. */
export function findCompany(index: CompanyIndex, input: CompanyInput): CompanyRecord | null {
  if (typeof input.cvr === 'string' && input.cvr.trim() !== '') {
    const cvr = canonicalCvr(input.cvr);
    const slot = cvr === null ? undefined : index.cvrSlots.get(Number(cvr));
    return slot === undefined ? null : unpack(index.packed[slot]);
  }
  if (typeof input.name === 'string' && input.name.trim() !== '') return byName(index, normalizeText(input.name));
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
