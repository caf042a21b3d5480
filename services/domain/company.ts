import { canonicalCvr } from './cvr.ts';
import { normalizeText } from './normalize.ts';
import { GrowingUint32, lowerBound, MAX_SLOTS, PackedTexts, sortedKeys, type SortedKeys } from './packed-texts.ts';
import type { CheckResult, PersonInput, Reason, Status } from './types.ts';

/**
 * Company checks (docs/decisions.md §17): a company of the register, its advertising protection and, for
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

/** What the caller sends (docs/contract.md CompanyInput). */
export interface CompanyInput {
  id?: string;
  cvr?: string;
  name?: string;
}

/** docs/contract.md CompanyCheckResult. */
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
 * register (2,000,000 companies): each company is one packed record (fields joined by U+001F) in
 * UTF-8 pages (PackedTexts), found by its CVR through a sorted Uint32Array of CVR numbers, and by
 * name through a sorted Uint32Array of 28-bit hashes of the folded name. Every name hit is
 * confirmed against the company's own folded name, so a hash collision never finds the wrong
 * company, and a name several companies share is ambiguous (null). No object, string or Map per
 * company stays on the heap (docs/companies.md "Performance").
 */
export interface CompanyIndex {
  /** Distinct companies (a CVR listed twice in an extract keeps its first record). */
  size: number;
  texts: PackedTexts;
  cvr: SortedKeys;
  names: SortedKeys;
}

const SEP = '\u001f';
const NAME_HASH_MASK = 0x0fffffff;

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

/** FNV-1a over UTF-16 code units, cut to 28 bits (sortedKeys packs key and slot in one double). */
function hashName(folded: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < folded.length; i++) {
    h ^= folded.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & NAME_HASH_MASK;
}

export function createCompanyIndexBuilder(): { add(record: CompanyRecord): void; build(): CompanyIndex } {
  const texts = new PackedTexts();
  const cvrs = new GrowingUint32();
  const hashes = new GrowingUint32();
  return {
    add(record) {
      if (texts.count >= MAX_SLOTS) throw new RangeError(`a company register holds at most ${MAX_SLOTS} companies`);
      texts.add(pack(record));
      cvrs.push(Number(record.cvr));
      hashes.push(hashName(normalizeText(record.name)));
    },
    build() {
      const n = texts.count;
      const all = sortedKeys(cvrs.done(), Uint32Array.from({ length: n }, (_, i) => i));
      // A CVR listed twice in an extract: the first record counts (equal keys keep the order of
      // their slots), the later one is not indexed at all, not even by name.
      const first = (i: number) => i === 0 || all.keys[i] !== all.keys[i - 1];
      let distinct = 0;
      for (let i = 0; i < n; i++) if (first(i)) distinct += 1;
      const cvr: SortedKeys = { keys: new Uint32Array(distinct), slots: new Uint32Array(distinct) };
      const nameKeys = new Uint32Array(distinct);
      let at = 0;
      for (let i = 0; i < n; i++) {
        if (!first(i)) continue;
        cvr.keys[at] = all.keys[i];
        cvr.slots[at] = all.slots[i];
        nameKeys[at] = hashes.at(all.slots[i]);
        at += 1;
      }
      return { size: distinct, texts, cvr, names: sortedKeys(nameKeys, cvr.slots) };
    },
  };
}

function byName(index: CompanyIndex, folded: string): CompanyRecord | null {
  const hash = hashName(folded);
  const { keys, slots } = index.names;
  let found: string | null = null;
  for (let i = lowerBound(keys, hash); i < keys.length && keys[i] === hash; i++) {
    const packed = index.texts.get(slots[i]);
    // Another name with the same hash is not this company; the same name twice is ambiguous.
    if (normalizeText(nameOf(packed)) !== folded) continue;
    if (found !== null) return null;
    found = packed;
  }
  return found === null ? null : unpack(found);
}

function byCvr(index: CompanyIndex, cvr: string): CompanyRecord | null {
  const key = Number(cvr);
  const at = lowerBound(index.cvr.keys, key);
  return at < index.cvr.keys.length && index.cvr.keys[at] === key ? unpack(index.texts.get(index.cvr.slots[at])) : null;
}

/** The register's company for an input: by CVR when given, else by name when exactly one has it. */
export function findCompany(index: CompanyIndex, input: CompanyInput): CompanyRecord | null {
  if (typeof input.cvr === 'string' && input.cvr.trim() !== '') {
    const cvr = canonicalCvr(input.cvr);
    return cvr === null ? null : byCvr(index, cvr);
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
  // Keys in the contract's order (docs/contract.md "CompanyInput and CompanyCheckResult"), as the
  // not-found answer above and a job's stored results have them (docs/companies.md "Jobs").
  const found = (status: CompanyCheckResult['status'], reasons: CompanyCheckResult['reasons']): CompanyCheckResult => ({
    id, cvr: company.cvr, name: company.name, status, reasons, company_form: company.form, synced_at: syncedAt,
  });
  const owner = company.owner ? checkOwner({ name: company.owner.name, address: company.owner.address }) : null;
  if (company.protected) {
    const ownerReasons = owner && owner.status === 'blocked' ? owner.reasons : [];
    return found('blocked', ['company_protected', ...ownerReasons]);
  }
  if (owner) return found(owner.status, owner.reasons);
  return found('allowed', []);
}
