import { describe, expect, it } from 'vitest';
import { JobInputError, jobInputIssue } from '../../../services/ingest/jobs/errors.ts';
import { cellsTextLength, jsonTextLength, type SpoolRow } from '../../../services/ingest/jobs/spool.ts';
import { personFromCells, resolveColumnMapping, type ResolvedColumnMapping } from '../../../services/ingest/files/index.ts';
import { MAX_FIELD_CHARS, personOfRow, spoolBatchesOf } from '../../../services/ingest/uploads/file-rows.ts';

/**
 * The upload's row reader (services/ingest/uploads/file-rows.ts) made per mapping: the same people
 * and the same spool line lengths as mapping a row with personFromCells, keeping what is not empty
 * and measuring `[person,cells]` as JSON, on seeded rows of awkward cells.
 */
const PERSON_FIELDS = [
  'id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city',
  'kvhx', 'phone', 'cvr', 'company_name',
] as const;

/** The reader as it was before it was made per mapping (the definition the new one must keep). */
function personAsDefined(cells: Array<string | null>, mapping: ResolvedColumnMapping, row: number, lenient: boolean): Record<string, string> {
  const mapped = personFromCells(cells, mapping) as Record<string, string | undefined>;
  const person: Record<string, string> = {};
  for (const field of PERSON_FIELDS) {
    const value = mapped[field];
    if (value === undefined || value === '') continue;
    if (value.length > MAX_FIELD_CHARS && !lenient) throw new JobInputError([jobInputIssue(`rows[${row}].${field}`, 'value_too_long')]);
    person[field] = value.length > MAX_FIELD_CHARS ? value.slice(0, MAX_FIELD_CHARS) : value;
  }
  return person;
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = ['Søren', ' Hansen ', 'Vestergade 3', '"Q"', 'a\\b', '\u0002', '\t', '\n', '😀', '\ud800', 'Ø', ' ', '', '8000', 'Aarhus C', 'æøå'];

function cellsOf(random: () => number, width: number): Array<string | null> {
  return Array.from({ length: width }, () => {
    if (random() < 0.15) return null;
    let text = '';
    for (let n = Math.floor(random() * 4); n >= 0; n--) text += PIECES[Math.floor(random() * PIECES.length)];
    return random() < 0.01 ? text.repeat(40) : text;
  });
}

const HEADER = ['Kundenr.', 'Navn', 'Fornavn', 'Efternavn', 'Adresse', 'Vejnavn', 'Husnr.', 'Etage', 'Dør', 'Postnr.', 'By', 'Telefon', 'CVR', 'Firma'];
const MAPPINGS: ResolvedColumnMapping[] = [
  resolveColumnMapping({ header_row: 0, external_id: 'Kundenr.', name: 'Navn', address: 'Adresse', postal_code: 'Postnr.', city: 'By' }, HEADER, HEADER.length),
  resolveColumnMapping({
    header_row: 0, external_id: 0, first_name: 2, last_name: 3, street: 5, house_number: 6, floor: 7, door: 8, postal_code: 9, city: 10,
    phone: 11, cvr: 12, company_name: 13,
  }, HEADER, HEADER.length),
  // Two fields from one column, a column beyond short rows.
  resolveColumnMapping({ header_row: -1, name: 1, address: 1, city: 13 }, null, HEADER.length),
];

describe('file rows read per mapping (file-rows.ts)', () => {
  it('gives the people and spool line lengths the definition gives, on 3,000 seeded rows per mapping', async () => {
    const random = seeded(21);
    for (const mapping of MAPPINGS) {
      const rows = Array.from({ length: 3000 }, () => cellsOf(random, 1 + Math.floor(random() * HEADER.length)));
      for (const [row, cells] of rows.entries()) {
        let expected: Record<string, string> | Error;
        try {
          expected = personAsDefined(cells, mapping, row, false);
        } catch (error) {
          expected = error as Error;
        }
        if (expected instanceof Error) {
          expect(() => personOfRow(cells, mapping, row)).toThrow(JobInputError);
          const thrown = (() => {
            try {
              personOfRow(cells, mapping, row);
            } catch (error) {
              return error as JobInputError;
            }
            return null;
          })();
          expect(thrown?.issues.map((i) => i.path)).toEqual([(expected as JobInputError).issues[0].path]);
        } else {
          expect(personOfRow(cells, mapping, row)).toEqual(expected);
          expect(Object.keys(personOfRow(cells, mapping, row))).toEqual(Object.keys(expected));
        }
        expect(personOfRow(cells, mapping, row, true)).toEqual(personAsDefined(cells, mapping, row, true));
      }
      const readable = rows.filter((cells, row) => {
        try {
          personAsDefined(cells, mapping, row, false);
          return true;
        } catch {
          return false;
        }
      });
      async function* once() {
        yield readable;
      }
      const spooled: SpoolRow[] = [];
      for await (const batch of spoolBatchesOf(once(), mapping)) spooled.push(...batch);
      expect(spooled).toHaveLength(readable.length);
      for (const [i, row] of spooled.entries()) {
        const line = JSON.stringify([row.person, row.cells]);
        expect(row.size).toBe(line.length);
        expect(row.size).toBe(3 + jsonTextLength(row.person) + cellsTextLength(row.cells as Array<string | null>));
        expect(row.cells).toBe(readable[i]);
      }
    }
  });

  it('names the first over-long field in the order of the job row and refuses the row', () => {
    const mapping = MAPPINGS[0];
    const cells = ['x'.repeat(MAX_FIELD_CHARS + 1), 'y'.repeat(MAX_FIELD_CHARS + 1), null, null, 'Vej 1', null, null, null, null, '8000', 'Aarhus'];
    expect(() => personOfRow(cells, mapping, 7)).toThrow(JobInputError);
    try {
      personOfRow(cells, mapping, 7);
    } catch (error) {
      expect((error as JobInputError).issues.map((i) => i.path)).toEqual(['rows[7].id']);
    }
    expect(personOfRow(cells, mapping, 7, true)).toEqual({
      id: 'x'.repeat(MAX_FIELD_CHARS), name: 'y'.repeat(MAX_FIELD_CHARS), address: 'Vej 1', postal_code: '8000', city: 'Aarhus',
    });
  });
});
