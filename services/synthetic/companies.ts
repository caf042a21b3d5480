import { cvrWithCheckDigit, type CompanyRecord } from '../domain/index.ts';
import { addressLine, randomPerson, type SyntheticAddress } from './generate.ts';
import { createRng, type Rng } from './rng.ts';

/**
 * Deterministic synthetic CVR extracts in the register's distribution shape (see
 * services/registers/companies/cvr-extract.ts): one document per company with nested, dated names, forms
 * and participants, including history that must NOT count (former names, a former form, a
 * former owner, a participant's former address). Each document comes with the record the
 * importer must make of it, so tests compare against the generator's truth, not the importer's.
 */
export interface SyntheticCompany {
  document: object;
  expected: CompanyRecord;
}

const OTHER_FORMS = ['ApS', 'A/S', 'I/S', 'IVS', 'K/S', 'FMBA'] as const;
const WORDS = ['Tømrer', 'Murer', 'Bager', 'Frisør', 'Rådgivning', 'Handel', 'Consult', 'Økologi', 'Byg', 'Data', 'Maler', 'Vinduespolering'];
const PROTECTED_SHARE = 0.08;

const period = (from: string, to: string | null) => ({ gyldigFra: from, gyldigTil: to });

/**
 * The i-th company's CVR: unique per i (four 7-digit prefixes reserved per company, the first
 * with a check digit taken; at most one of four consecutive prefixes has none), so an extract
 * of up to 2,250,000 companies never repeats a CVR, as the register never does.
 */
function cvrAt(i: number): string {
  for (let j = 0; j < 4; j++) {
    const cvr = cvrWithCheckDigit(String(1_000_000 + i * 4 + j));
    if (cvr) return cvr;
  }
  throw new RangeError(`no CVR for company ${i}`);
}

function personParticipant(name: string, current: SyntheticAddress, former: SyntheticAddress | null, ownerFrom: string, ownerTo: string | null) {
  const address = (a: SyntheticAddress, p: ReturnType<typeof period>) => ({
    vejnavn: a.street, husnummerFra: Number(a.number), bogstavFra: a.letter || null,
    etage: a.floor || null, sidedoer: a.door || null, postnummer: Number(a.postal_code), postdistrikt: a.city, periode: p,
  });
  return {
    deltager: {
      enhedstype: 'PERSON',
      navne: [{ navn: name, periode: period('1990-01-01', null) }],
      beliggenhedsadresse: [
        ...(former ? [address(former, period('2005-01-01', '2015-12-31'))] : []),
        address(current, period(former ? '2016-01-01' : '2005-01-01', null)),
      ],
    },
    organisationer: [{
      hovedtype: 'FULDT_ANSVARLIG_DELTAGERE',
      organisationsNavn: [{ navn: 'Fuldt ansvarlige deltagere', periode: period(ownerFrom, null) }],
      medlemsData: [{ attributter: [{ type: 'FUNKTION', vaerdier: [{ vaerdi: 'FULDT ANSVARLIG DELTAGER', periode: period(ownerFrom, ownerTo) }] }] }],
    }],
  };
}

function ownerOf(rng: Rng): { name: string; current: SyntheticAddress; former: SyntheticAddress | null } {
  const p = randomPerson(rng);
  return { name: `${p.given.join(' ')} ${p.surname}`, current: p.current, former: p.previous };
}

const addressText = (a: SyntheticAddress) => `${addressLine(a)}, ${a.postal_code} ${a.city}`;

export function randomCompany(rng: Rng, i: number): SyntheticCompany {
  const cvr = cvrAt(i);
  const isProtected = rng.chance(PROTECTED_SHARE);
  const roll = rng.next();
  const form = roll < 0.3 ? 'ENK' : roll < 0.36 ? 'PMV' : rng.pick(OTHER_FORMS);
  const owners = form === 'ENK' ? 1 : form === 'PMV' ? (rng.chance(0.7) ? 1 : 2) : 0;
  const people = Array.from({ length: owners }, () => ownerOf(rng));
  const base = `${rng.pick(WORDS)} ${people[0]?.name.split(' ').at(-1) ?? rng.pick(WORDS)} ${i}`;
  const name = form === 'ENK' || form === 'PMV' ? base : `${base} ${form}`;
  const renamed = rng.chance(0.3);
  // A company that began as a sole proprietorship and became an ApS keeps its ENK history.
  const formerForm = form !== 'ENK' && form !== 'PMV' && rng.chance(0.15) ? 'ENK' : null;
  const relations = people.map((p) => personParticipant(p.name, p.current, p.former, '2010-01-01', null));
  // A former owner (ended membership) is in the history of some companies and must not count.
  if (rng.chance(0.2)) {
    const former = ownerOf(rng);
    relations.unshift(personParticipant(former.name, former.current, null, '2001-01-01', '2009-12-31'));
  }
  const document = {
    _index: 'cvr-permanent', _type: '_doc', _id: cvr,
    _source: {
      Vrvirksomhed: {
        cvrNummer: Number(cvr),
        reklamebeskyttet: isProtected,
        navne: [
          ...(renamed ? [{ navn: `${base} (tidl.)`, periode: period('2001-01-01', '2009-12-31') }] : []),
          { navn: name, periode: period(renamed ? '2010-01-01' : '2001-01-01', null) },
        ],
        virksomhedsform: [
          ...(formerForm ? [{ virksomhedsformkode: 10, kortBeskrivelse: formerForm, langBeskrivelse: 'Enkeltmandsvirksomhed', periode: period('2001-01-01', '2009-12-31') }] : []),
          { virksomhedsformkode: 80, kortBeskrivelse: form, langBeskrivelse: form, periode: period(formerForm ? '2010-01-01' : '2001-01-01', null) },
        ],
        deltagerRelation: relations,
        virksomhedMetadata: { nyesteNavn: { navn: name }, sammescore: 0 },
      },
    },
  };
  const soleOwner = form === 'ENK' || (form === 'PMV' && owners === 1) ? people[0] : null;
  return {
    document,
    expected: {
      cvr, name, form, protected: isProtected,
      owner: soleOwner ? { name: soleOwner.name, address: addressText(soleOwner.current) } : null,
    },
  };
}

export function* generateCompanies(count: number, seed: number | string): Generator<SyntheticCompany> {
  const rng = createRng(`companies:${seed}`);
  for (let i = 0; i < count; i++) yield randomCompany(rng, i);
}

/** An extract as JSON lines, in chunks of about `chunkBytes` (for importers and the bench). */
export function* cvrExtractChunks(count: number, seed: number | string, chunkBytes = 1 << 20): Generator<Buffer> {
  let pending: string[] = [];
  let size = 0;
  for (const company of generateCompanies(count, seed)) {
    const line = `${JSON.stringify(company.document)}\n`;
    pending.push(line);
    size += line.length;
    if (size >= chunkBytes) {
      yield Buffer.from(pending.join(''));
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield Buffer.from(pending.join(''));
}


