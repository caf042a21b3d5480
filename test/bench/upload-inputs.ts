/**
 * The people of the uploads bench and its driver (uploads.bench.ts, upload-driver.ts): `rows`
 * people, 20 % of them list members (the first ones, from the list's own generator), and the same
 * people as a semicolon CSV with a BOM as Danish Excel writes it, as an xlsx (exceljs) and as a
 * JSON job body: the floor of a CSV upload is the JSON body of the same people (floor.ts).
 */
import ExcelJS from 'exceljs';
import type { PersonInput } from '../../services/domain/types.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';

export const UPLOAD_SEED = 13;
const FIELDS = ['id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city'] as const;
const HEADER = ['Kundenr.', 'Navn', 'Fornavn', 'Efternavn', 'Adresse', 'Vejnavn', 'Husnr.', 'Etage', 'Dør', 'Postnr.', 'By'];

export function uploadPeople(rows: number): PersonInput[] {
  const out: PersonInput[] = [];
  let id = 0;
  for (const entry of generateListEntries(Math.round(rows * 0.2), UPLOAD_SEED)) {
    const { previous: _previous, ...person } = entry;
    out.push({ id: `r${id++}`, ...person });
  }
  for (let batch = 0; out.length < rows; batch++) {
    for (const p of generatePeople(Math.min(100_000, rows - out.length), `${UPLOAD_SEED}-${batch}`)) out.push({ ...p, id: `r${id++}` });
  }
  return out;
}

const cellsOf = (p: PersonInput) => FIELDS.map((f) => p[f] ?? null);

export function csvOf(all: PersonInput[]): Buffer {
  const quote = (v: string | null) => (v === null ? '' : /[;"\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = [HEADER.join(';')];
  for (const p of all) lines.push(cellsOf(p).map(quote).join(';'));
  return Buffer.from(`\ufeff${lines.join('\r\n')}\r\n`);
}

export async function xlsxOf(all: PersonInput[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Kunder');
  sheet.addRow(HEADER);
  for (const p of all) sheet.addRow(cellsOf(p).map((c) => c ?? undefined));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export function jsonBodyOf(all: PersonInput[]): Buffer {
  return Buffer.from(JSON.stringify({ people: all }));
}
