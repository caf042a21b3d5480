import type avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { createPipelineEvents, type EventMessage, type InputRow, type RowsChunkEvent } from '../../../services/pipeline/events.ts';
import { PERSON_FIELDS, restorePersonCells, takePersonCells } from '../../../services/pipeline/person-cells.ts';
import { createJobDataKeys } from '../../../services/platform/keys/data-keys.ts';
import { seal } from '../../../services/platform/keys/sealed-payload.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import { frame } from '../../../services/platform/schema-registry/port.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { toAvroPerson } from '../../../services/pipeline/events.ts';
import { sampleEvents } from '../../fixtures/events.ts';

/**
 * RowsChunk v7 (services/pipeline/person-cells.ts): a file row's person fields that are its cells
 * travel once, as cells, and read back whole; whatever is not exactly a cell's value stays in the
 * person. Real embedded key stores (node:sqlite in memory), the real schemas.
 */
const SUBJECT = 'checks.rows-dk.robinson.checks.RowsChunk';
const rowsSample = sampleEvents[SUBJECT] as RowsChunkEvent;

function setup() {
  const db = openEmbeddedDatabase(':memory:');
  const keys = createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db), cacheMs: 0 });
  const appended: EventMessage[] = [];
  const events = createPipelineEvents({ log: { publish: async (_t, messages) => void appended.push(...messages) }, registry: createStaticSchemaRegistry(), dataKeys: keys });
  return { keys, events, appended };
}

/** A file row as the intake makes it: cells as read, the person each mapped cell trimmed (file-rows.ts). */
function fileRow(row: number, cells: Array<string | null>, mapping: Partial<Record<(typeof PERSON_FIELDS)[number], number>>): InputRow {
  const person: Record<string, string> = {};
  for (const [field, column] of Object.entries(mapping)) {
    const value = cells[column]?.trim();
    if (value) person[field] = value;
  }
  return { row, person: toAvroPerson(person), cells };
}

const mapping = { id: 0, name: 1, street: 2, house_number: 3, postal_code: 4, city: 5 } as const;
/** Seeded awkward rows: spaces around values, empty and missing cells, æøå, a value found in two cells. */
function awkwardRows(count: number): InputRow[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const rows: InputRow[] = [];
  for (let i = 0; i < count; i++) {
    const cells: Array<string | null> = [
      pick([`c-${i}`, ` c-${i} `, '', null]), pick(['Søren Ærø', '  Åse Øst', 'Aarhus', '   ']), pick(['Åboulevarden', 'Vej\t', '']),
      pick(['12', '3B', null]), pick(['8000', ' 2100', '']), pick(['Aarhus', 'København Ø', null]), pick(['note', '', 'Aarhus']),
    ];
    rows.push(fileRow(i, cells.slice(0, pick([5, 6, 7])), mapping));
  }
  return rows;
}

const personsOf = (rows: InputRow[]) => rows.map((r) => ({ ...r.person }));

describe('person fields carried as cells (RowsChunk v7)', () => {
  it('names the mapped columns, writes those fields null and reads every person back as it was', () => {
    const rows = awkwardRows(2000);
    const before = personsOf(rows);
    const columns = takePersonCells(rows);
    expect(columns).toEqual(PERSON_FIELDS.map((f) => (mapping as Record<string, number>)[f] ?? -1));
    expect(rows.every((r) => r.person.name === null && r.person.city === null)).toBe(true);
    restorePersonCells(rows, columns!);
    expect(personsOf(rows)).toEqual(before);
  });

  it('keeps in the person a field that is not its cell in every row, and leaves JSON rows alone', () => {
    const rows = awkwardRows(50);
    rows[31].person.name = 'Other Name'; // not what its cell reads
    const before = personsOf(rows);
    const columns = takePersonCells(rows)!;
    expect(columns[PERSON_FIELDS.indexOf('name')]).toBe(-1);
    expect(columns[PERSON_FIELDS.indexOf('street')]).toBe(2);
    expect(rows[31].person.name).toBe('Other Name');
    restorePersonCells(rows, columns);
    expect(personsOf(rows)).toEqual(before);

    // A person's value that is its cell with the spaces kept: restoring would trim it, so it stays.
    const spaced = awkwardRows(20);
    spaced[5].cells![0] = ' c-5 ';
    spaced[5].person.id = ' c-5 ';
    const spacedBefore = personsOf(spaced);
    const spacedColumns = takePersonCells(spaced)!;
    expect(spacedColumns[PERSON_FIELDS.indexOf('id')]).toBe(-1);
    restorePersonCells(spaced, spacedColumns);
    expect(personsOf(spaced)).toEqual(spacedBefore);

    const json: InputRow[] = [{ row: 0, person: toAvroPerson({ name: 'Søren Ærø' }), cells: null }];
    expect(takePersonCells(json)).toBeNull();
    expect(json[0].person.name).toBe('Søren Ærø');
  });

  it('a published file chunk is smaller, names no one on the log and decodes to the same rows', async () => {
    const { events, appended } = setup();
    const rows = awkwardRows(500);
    const expected = personsOf(rows);
    const whole = { ...rowsSample, rows: rows.map((r) => ({ ...r, person: { ...r.person } })), person_cells: null };
    await events.publish({ type: 'RowsChunk', value: whole });
    const columns = takePersonCells(rows);
    await events.publish({ type: 'RowsChunk', value: { ...rowsSample, rows, person_cells: columns } });
    const [full, slim] = appended.map((m) => m.value);
    expect(slim.length).toBeLessThan(full.length * 0.8);
    expect(slim.includes(Buffer.from('Søren Ærø'))).toBe(false);
    for (const bytes of [full, slim]) {
      const decoded = (await events.decode(bytes)).value as RowsChunkEvent;
      expect(decoded.rows.map((r) => r.person)).toEqual(expected);
      expect(decoded.rows.map((r) => r.cells)).toEqual(rows.map((r) => r.cells));
      expect(decoded.person_cells).toBeNull();
    }
  });

  it('reads a chunk sealed by the v6 schema: every person as written', async () => {
    const { events, keys } = setup();
    const v6 = loadSchemaCatalog().bySubject.get(SUBJECT)!.find((e) => e.version === 6)!;
    const rowsType = (v6.type as avro.types.RecordType).field('rows').type;
    const rows = awkwardRows(100);
    const expected = personsOf(rows);
    const key = await keys.writerKey(rowsSample.job_id);
    const sealed = seal(key.key, rowsType.toBuffer(rows), `RowsChunk:${rowsSample.job_id}:${rowsSample.chunk}`);
    const { person_cells: _none, ...v6Envelope } = { ...rowsSample, rows: [], data_key_id: key.keyId, sealed_rows: sealed, person_cells: null };
    const decoded = (await events.decode(frame(v6.id, v6.type.toBuffer(v6Envelope)))).value as RowsChunkEvent;
    expect(decoded.rows.map((r) => r.person)).toEqual(expected);
    expect(decoded.person_cells).toBeNull();
  });
});
