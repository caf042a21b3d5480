import { soleOwnerOf, type CompanyRecord } from '../../domain/index.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * Reads one record of a CVR extract: the register's distribution (Erhvervsstyrelsen's "CVR
 * data" / System-til-system) publishes each company as one JSON document, nested under
 * `_source.Vrvirksomhed` when taken from the search index. An extract is one document per line
 * (JSON lines). Fields used (docs/companies.md lists them with examples):
 *
 * - `cvrNummer` (number or string): the CVR number.
 * - `reklamebeskyttet` (boolean): advertising protection.
 * - `navne[]` `{navn, periode: {gyldigFra, gyldigTil}}`: names over time.
 * - `virksomhedsform[]` `{kortBeskrivelse, periode}`: legal forms over time (`ENK`, `PMV`, `ApS`, …).
 * - `deltagerRelation[]`: participants. A relation is an owner when one of its `organisationer`
 *   has `hovedtype` `FULDT_ANSVARLIG_DELTAGERE` with a current membership period
 *   (`medlemsData[].attributter[].vaerdier[].periode`); the person is `deltager` with its own
 *   `navne[]` and `beliggenhedsadresse[]` (`vejnavn`, `husnummerFra`, `bogstavFra`, `etage`,
 *   `sidedoer`, `postnummer`, `postdistrikt`, each with `periode`).
 *
 * Only current values count: a period is current when `gyldigTil` is null. Should the register
 * carry none (a ceased company), the value with the latest `gyldigFra` is taken. Everything else
 * in the document is ignored.
 */
export class CvrRecordError extends PermanentError {
  readonly reason: 'not_json' | 'no_company' | 'no_cvr' | 'no_name' | 'no_form';
  constructor(reason: CvrRecordError['reason']) {
    super(`unusable company record: ${reason}`);
    this.reason = reason;
    this.name = 'CvrRecordError';
  }
}

interface Period { gyldigFra?: string | null; gyldigTil?: string | null }
interface Dated { periode?: Period | null }

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');

function isCurrent(item: Dated): boolean {
  return !item.periode || item.periode.gyldigTil === null || item.periode.gyldigTil === undefined;
}

/** The current item of a dated list, else the latest one (by gyldigFra), else null. */
export function currentOf<T extends Dated>(items: readonly T[]): T | null {
  const current = items.filter(isCurrent);
  const pool = current.length > 0 ? current : items;
  let best: T | null = null;
  for (const item of pool) {
    if (!best || (item.periode?.gyldigFra ?? '') >= (best.periode?.gyldigFra ?? '')) best = item;
  }
  return best;
}

/** The company document of one extract line, whatever wrapper the distribution put around it. */
function companyOf(document: unknown): Json | null {
  if (!isObject(document)) return null;
  const source = isObject(document._source) ? document._source : document;
  if (isObject(source.Vrvirksomhed)) return source.Vrvirksomhed;
  return 'cvrNummer' in source ? source : null;
}

function addressText(address: Json): string {
  const number = `${text(address.husnummerFra)}${text(address.bogstavFra)}`;
  const unit = [text(address.etage) === '' ? '' : `${text(address.etage)}.`, text(address.sidedoer)].filter(Boolean).join(' ');
  const street = [text(address.vejnavn), number].filter(Boolean).join(' ');
  const town = [text(address.postnummer), text(address.postdistrikt)].filter(Boolean).join(' ');
  return [street, unit, town].filter(Boolean).join(', ');
}

function isCurrentOwner(relation: Json): boolean {
  return arrayOf(relation.organisationer).some((organisation) =>
    organisation.hovedtype === 'FULDT_ANSVARLIG_DELTAGERE'
    && arrayOf(organisation.medlemsData).some((member) =>
      arrayOf(member.attributter).some((attribute) => arrayOf(attribute.vaerdier).some((value) => isCurrent(value)))));
}

function ownersOf(company: Json): Array<{ name: string; address: string }> {
  const owners: Array<{ name: string; address: string }> = [];
  for (const relation of arrayOf(company.deltagerRelation)) {
    const participant = isObject(relation.deltager) ? relation.deltager : null;
    if (!participant || participant.enhedstype !== 'PERSON' || !isCurrentOwner(relation)) continue;
    const name = text(currentOf(arrayOf(participant.navne) as Array<Json & Dated>)?.navn);
    const address = currentOf(arrayOf(participant.beliggenhedsadresse) as Array<Json & Dated>);
    if (name !== '') owners.push({ name, address: address ? addressText(address) : '' });
  }
  return owners;
}

/** One extract line to the record the register index keeps. Throws CvrRecordError (no content in it). */
export function readCvrLine(line: string): CompanyRecord {
  let document: unknown;
  try {
    document = JSON.parse(line);
  } catch {
    throw new CvrRecordError('not_json');
  }
  const company = companyOf(document);
  if (!company) throw new CvrRecordError('no_company');
  const cvr = text(company.cvrNummer).padStart(8, '0');
  if (!/^\d{8}$/.test(cvr)) throw new CvrRecordError('no_cvr');
  const name = text(currentOf(arrayOf(company.navne) as Array<Json & Dated>)?.navn);
  if (name === '') throw new CvrRecordError('no_name');
  const form = text(currentOf(arrayOf(company.virksomhedsform) as Array<Json & Dated>)?.kortBeskrivelse);
  if (form === '') throw new CvrRecordError('no_form');
  return { cvr, name, form, protected: company.reklamebeskyttet === true, owner: soleOwnerOf(form, ownersOf(company)) };
}
