import type { RegisterAddress } from '../../domain/address-register.ts';
import { jsonRecords } from './json-records.ts';

/**
 * Reads the national address register (DAR, Danmarks Adresseregister) as published: JSON per
 * entity, and joins it into one RegisterAddress per current unit address. Field names are read in
 * both published spellings: the Datafordeler download (camelCase, `id_lokalId`, references by
 * entity name: `husnummer`, `navngivenVej`) and DAWA's DAR 1.0 replica (lower case, references
 * with an `_id` suffix: `husnummer_id`, `navngivenvej_id`). The fields read (docs/addresses.md):
 *
 * | entity | fields |
 * |---|---|
 * | NavngivenVej | id, vejnavn, vejadresseringsnavn |
 * | NavngivenVejKommunedel | navngivenVej, kommune (kommunekode), vejkode |
 * | Postnummer | id, postnr, navn |
 * | SupplerendeBynavn | id, navn |
 * | DARKommuneinddeling | id, kommunekode (optional: which municipality a house number is in) |
 * | Husnummer | id, husnummertekst, navngivenVej, postnummer, supplerendeBynavn, kommuneinddeling |
 * | Adresse | id, husnummer, etagebetegnelse, dørbetegnelse |
 *
 * Only current registrations are read: registreringTil and virkningTil empty, status 2 (foreløbig,
 * provisional) or 3 (gældende, in force); DAR keeps every earlier state as further rows.
 *
 * Streaming: the small entities (streets, postal codes, towns, municipality parts) and a compact
 * row per house number are held; unit addresses are never held, they are handed on one by one.
 * The entities may come in any order and in any number of sources (one national file or one file
 * per entity): every source is read once for everything but Adresse, then the Adresse records are
 * streamed.
 */

/** A source of JSON text: called once per pass, it must start from the beginning each time. */
export type DarSource = () => AsyncIterable<string | Buffer>;

export interface DarImportStats {
  /** Unit addresses handed on. */
  addresses: number;
  /** Current unit addresses left out, by why (counts only: no content of the register). */
  skipped: { noHouseNumber: number; noStreet: number; noPostalCode: number };
}

type Row = Record<string, unknown>;

const CURRENT_STATUS = new Set(['2', '3']);

function field(row: Row, ...names: string[]): unknown {
  for (const name of names) {
    const value = row[name];
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return null;
}

function text(row: Row, ...names: string[]): string | null {
  const value = field(row, ...names);
  if (value === null) return null;
  // Datafordeler nests a reference now and then as { id_lokalId } or { ... , id }.
  if (typeof value === 'object') return text(value as Row, 'id_lokalId', 'id', 'kode', 'kommunekode');
  return String(value);
}

function isCurrent(row: Row): boolean {
  const status = text(row, 'status');
  return field(row, 'registreringTil', 'registreringtil') === null
    && field(row, 'virkningTil', 'virkningtil') === null
    && (status === null || CURRENT_STATUS.has(status));
}

/** The entity a record belongs to: from its list ("AdresseList") or its source's name. */
function entityOf(list: string, sourceEntity: string): string {
  const name = list !== '' ? list : sourceEntity;
  return name.endsWith('List') ? name.slice(0, -4) : name;
}

interface House {
  street: string | null;
  house: string;
  postal: string | null;
  town: string | null;
  kommune: string | null;
}

export interface DarSources {
  /** Named sources: the name says the entity when the file holds a bare array or NDJSON ("Adresse"). */
  [entity: string]: DarSource;
}

export async function* readDar(sources: DarSources, stats: DarImportStats): AsyncGenerator<RegisterAddress> {
  const streets = new Map<string, { name: string; short: string | null }>();
  const postals = new Map<string, { code: string; name: string }>();
  const towns = new Map<string, string>();
  const kommuneOfDivision = new Map<string, string>();
  /** Street id → its (kommune, vejkode) parts. */
  const streetParts = new Map<string, Array<{ kommune: string; vejkode: string }>>();
  const houses = new Map<string, House>();

  // Pass 1: everything but the unit addresses.
  for (const [sourceEntity, source] of Object.entries(sources)) {
    for await (const { list, value: row } of jsonRecords(source())) {
      const entity = entityOf(list, sourceEntity);
      if (entity === 'Adresse' || !isCurrent(row)) continue;
      const id = text(row, 'id_lokalId', 'id');
      if (id === null) continue;
      switch (entity) {
        case 'NavngivenVej': {
          const name = text(row, 'vejnavn');
          if (name !== null) streets.set(id, { name, short: text(row, 'vejadresseringsnavn') });
          break;
        }
        case 'NavngivenVejKommunedel': {
          const street = text(row, 'navngivenVej', 'navngivenvej_id');
          const kommune = text(row, 'kommune');
          const vejkode = text(row, 'vejkode');
          if (street === null || kommune === null || vejkode === null) break;
          const parts = streetParts.get(street) ?? [];
          parts.push({ kommune: kommune.padStart(4, '0'), vejkode: vejkode.padStart(4, '0') });
          streetParts.set(street, parts);
          break;
        }
        case 'Postnummer': {
          const code = text(row, 'postnr');
          const name = text(row, 'navn');
          if (code !== null && name !== null) postals.set(id, { code: code.padStart(4, '0'), name });
          break;
        }
        case 'SupplerendeBynavn': {
          const name = text(row, 'navn');
          if (name !== null) towns.set(id, name);
          break;
        }
        case 'DARKommuneinddeling': {
          const code = text(row, 'kommunekode');
          if (code !== null) kommuneOfDivision.set(id, code.padStart(4, '0'));
          break;
        }
        case 'Husnummer': {
          const house = text(row, 'husnummertekst');
          if (house === null) break;
          houses.set(id, {
            street: text(row, 'navngivenVej', 'navngivenvej_id'),
            house,
            postal: text(row, 'postnummer', 'postnummer_id'),
            town: text(row, 'supplerendeBynavn', 'supplerendebynavn_id'),
            kommune: text(row, 'kommuneinddeling', 'darkommune_id'),
          });
          break;
        }
        default:
          break; // Adressepunkt, DAGI divisions, ...: not needed for addressing
      }
    }
  }

  // Pass 2: the unit addresses, joined one by one.
  for (const [sourceEntity, source] of Object.entries(sources)) {
    for await (const { list, value: row } of jsonRecords(source())) {
      if (entityOf(list, sourceEntity) !== 'Adresse' || !isCurrent(row)) continue;
      const houseId = text(row, 'husnummer', 'husnummer_id');
      const house = houseId === null ? undefined : houses.get(houseId);
      if (house === undefined || houseId === null) {
        stats.skipped.noHouseNumber++;
        continue;
      }
      const street = house.street === null ? undefined : streets.get(house.street);
      if (street === undefined) {
        stats.skipped.noStreet++;
        continue;
      }
      const postal = house.postal === null ? undefined : postals.get(house.postal);
      if (postal === undefined) {
        stats.skipped.noPostalCode++;
        continue;
      }
      const parts = streetParts.get(house.street!) ?? [];
      const kommune = house.kommune === null ? null : kommuneOfDivision.get(house.kommune) ?? null;
      // The municipality part of the street the house number lies in; a street in one
      // municipality only has one part, whatever the house number says.
      const part = parts.length === 1 ? parts[0] : parts.find((p) => p.kommune === kommune);
      stats.addresses++;
      yield {
        accessId: houseId,
        street: street.name,
        addressingName: street.short,
        houseNumber: house.house,
        floor: text(row, 'etagebetegnelse'),
        door: text(row, 'dørbetegnelse', 'doerbetegnelse'),
        postalCode: postal.code,
        postalName: postal.name,
        town: house.town === null ? null : towns.get(house.town) ?? null,
        kommunekode: part?.kommune ?? null,
        vejkode: part?.vejkode ?? null,
      };
    }
  }
}

export function newDarImportStats(): DarImportStats {
  return { addresses: 0, skipped: { noHouseNumber: 0, noStreet: 0, noPostalCode: 0 } };
}
