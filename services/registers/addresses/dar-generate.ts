import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { RegisterAddress } from '../../domain/address-register.ts';
import type { DarSources } from './dar-import.ts';

/**
 * Writes unit addresses out as DAR publishes them (the Datafordeler download's shape: one JSON
 * object per entity list, `{"AdresseList": [...]}`, camelCase fields, references by id), for tests
 * and the bench. Every 40th unit address also gets an earlier, superseded registration (with
 * `registreringTil` set and another floor), as DAR keeps history rows: the importer must skip it.
 * `addresses` is called once per pass and must give the same addresses each time.
 */
/** One NavngivenVej per name and legacy street code: the same name in two municipalities is two streets. */
function streetKey(a: RegisterAddress): string {
  return `${a.street}|${a.kommunekode}|${a.vejkode}`;
}

export function darSourcesOf(addresses: () => Iterable<RegisterAddress>): DarSources {
  const streets = new Map<string, number>();
  const streetRows: object[] = [];
  const parts: object[] = [];
  const postals = new Map<string, number>();
  const postalRows: object[] = [];
  const towns = new Map<string, number>();
  const townRows: object[] = [];
  let scanned = false;

  const id = (kind: number, n: number): string =>
    `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const current = { status: '3', registreringTil: null, virkningTil: null };

  /** The small entities: one walk over the addresses. */
  function scan(): void {
    if (scanned) return;
    scanned = true;
    for (const a of addresses()) {
      if (!streets.has(streetKey(a))) {
        streets.set(streetKey(a), streets.size);
        const streetId = id(1, streets.size - 1);
        streetRows.push({ id_lokalId: streetId, ...current, vejnavn: a.street, vejadresseringsnavn: a.addressingName ?? a.street });
        if (a.kommunekode && a.vejkode) parts.push({ id_lokalId: id(2, parts.length), ...current, navngivenVej: streetId, kommune: a.kommunekode, vejkode: a.vejkode });
      }
      if (!postals.has(a.postalCode)) {
        postals.set(a.postalCode, postals.size);
        postalRows.push({ id_lokalId: id(3, postals.size - 1), ...current, postnr: a.postalCode, navn: a.postalName });
      }
      if (a.town && !towns.has(a.town)) {
        towns.set(a.town, towns.size);
        townRows.push({ id_lokalId: id(4, towns.size - 1), ...current, navn: a.town });
      }
    }
  }

  const accessIds = (): Map<string, number> => new Map();

  function* entityList(name: string, rows: () => Iterable<object>): Generator<string> {
    yield `{"${name}List":[`;
    let first = true;
    let batch = '';
    for (const row of rows()) {
      batch += (first ? '' : ',') + JSON.stringify(row);
      first = false;
      if (batch.length > 1 << 16) {
        yield batch;
        batch = '';
      }
    }
    yield `${batch}]}`;
  }

  async function* fromSync(sync: Generator<string>): AsyncGenerator<string> {
    yield* sync;
  }

  function* houseRows(): Generator<object> {
    const seen = accessIds();
    for (const a of addresses()) {
      if (seen.has(a.accessId)) continue;
      seen.set(a.accessId, seen.size);
      yield {
        id_lokalId: id(5, seen.size - 1), ...current, husnummertekst: a.houseNumber,
        navngivenVej: id(1, streets.get(streetKey(a))!), postnummer: id(3, postals.get(a.postalCode)!),
        supplerendeBynavn: a.town ? id(4, towns.get(a.town)!) : null,
      };
    }
  }

  function* unitRows(): Generator<object> {
    const seen = accessIds();
    let n = 0;
    for (const a of addresses()) {
      if (!seen.has(a.accessId)) seen.set(a.accessId, seen.size);
      const house = id(5, seen.get(a.accessId)!);
      if (n % 40 === 0) {
        yield {
          id_lokalId: id(6, n), status: '3', registreringTil: '2020-01-01T00:00:00Z', virkningTil: null,
          husnummer: house, etagebetegnelse: '99', dørbetegnelse: 'old',
        };
      }
      yield { id_lokalId: id(6, n), ...current, husnummer: house, etagebetegnelse: a.floor, dørbetegnelse: a.door };
      n++;
    }
  }

  return {
    NavngivenVej: () => { scan(); return fromSync(entityList('NavngivenVej', () => streetRows)); },
    NavngivenVejKommunedel: () => { scan(); return fromSync(entityList('NavngivenVejKommunedel', () => parts)); },
    Postnummer: () => { scan(); return fromSync(entityList('Postnummer', () => postalRows)); },
    SupplerendeBynavn: () => { scan(); return fromSync(entityList('SupplerendeBynavn', () => townRows)); },
    Husnummer: () => { scan(); return fromSync(entityList('Husnummer', houseRows)); },
    Adresse: () => { scan(); return fromSync(entityList('Adresse', unitRows)); },
  };
}

/** Writes each entity of `sources` to `<dir>/<Entity>.json` (the per-entity file layout). */
export async function writeDarFiles(dir: string, sources: DarSources): Promise<void> {
  for (const [entity, source] of Object.entries(sources)) {
    const out = createWriteStream(join(dir, `${entity}.json`));
    for await (const chunk of source()) {
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  }
}
