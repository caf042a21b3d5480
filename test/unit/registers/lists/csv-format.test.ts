import { describe, expect, it } from 'vitest';
import type { ListEntry } from '../../../../services/domain/types.ts';
import { parseListCsv } from '../../../../services/registers/lists/csv-format.ts';
import { ListFileFormatError, ListFileRowsError } from '../../../../services/registers/lists/list-file-errors.ts';
import { incompleteUtf8Tail } from '../../../../services/registers/lists/text-decoding.ts';

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(bytes: Uint8Array, chunkSize = 1 << 16): Promise<{ entries: ListEntry[]; error: unknown }> {
  const entries: ListEntry[] = [];
  try {
    for await (const entry of parseListCsv(chunked(bytes, chunkSize))) entries.push(entry);
    return { entries, error: null };
  } catch (error) {
    return { entries, error };
  }
}

async function readOk(bytes: Uint8Array, chunkSize?: number): Promise<ListEntry[]> {
  const { entries, error } = await read(bytes, chunkSize);
  if (error) throw error;
  return entries;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('parseListCsv', () => {
  it('reads the PersonInput columns with `,`, quoted fields and ignores unknown columns', async () => {
    const csv = [
      'id,name,address,postal_code,city,phone,notes',
      '7,"Hansen, Anne","Gammel Kongevej 12A, 1. tv",1850,Frederiksberg C,12345678,"said ""no"""',
      '8,Søren Ørsted,Åboulevard 3,2200,København N,,',
    ].join('\n');
    expect(await readOk(utf8(csv))).toEqual([
      { name: 'Hansen, Anne', address: 'Gammel Kongevej 12A, 1. tv', postal_code: '1850', city: 'Frederiksberg C', previous: false },
      { name: 'Søren Ørsted', address: 'Åboulevard 3', postal_code: '2200', city: 'København N', previous: false },
    ]);
  });

  it('detects `;` and tab separators; reads split name and address parts; CRLF', async () => {
    const semicolon = 'first_name;last_name;street;house_number;floor;door;postal_code;city\r\nAnne;Hansen;Vestergade;12 a;st;th;8000;Aarhus C\r\n';
    const tab = semicolon.replaceAll(';', '\t');
    const expected = [{
      first_name: 'Anne', last_name: 'Hansen', street: 'Vestergade', house_number: '12 a', floor: 'st', door: 'th',
      postal_code: '8000', city: 'Aarhus C', previous: false,
    }];
    expect(await readOk(utf8(semicolon))).toEqual(expected);
    expect(await readOk(utf8(tab))).toEqual(expected);
  });

  it('matches column names loosely and accepts Danish headers', async () => {
    const csv = 'Fornavn;Efternavn;Adresse;Postnr;By;KVHX;Tidligere\nAnne;Hansen;Vestergade 1;8000;Aarhus C;07515319___1_______;ja\n';
    expect(await readOk(utf8(csv))).toEqual([{
      first_name: 'Anne', last_name: 'Hansen', address: 'Vestergade 1', postal_code: '8000', city: 'Aarhus C',
      kvhx: '07515319___1_______', previous: true,
    }]);
    const english = 'First Name,LAST-NAME,Address,Postal Code\nAnne,Hansen,Vestergade 1,8000\n';
    expect(await readOk(utf8(english))).toEqual([{ first_name: 'Anne', last_name: 'Hansen', address: 'Vestergade 1', postal_code: '8000', previous: false }]);
  });

  it('drops a UTF-8 BOM and keeps line breaks inside quotes', async () => {
    const csv = '\ufeffname,address\n"Anne\nHansen","Vestergade 1"\n';
    expect(await readOk(utf8(csv))).toEqual([{ name: 'Anne\nHansen', address: 'Vestergade 1', previous: false }]);
  });

  it('stores NFD text (macOS, some exports) in NFC, as matching reads it', async () => {
    const nfd = 'name,address,city\nÅse Ågård,Østre Stationsvej 1,Århus\n'.normalize('NFD');
    const [entry] = await readOk(utf8(nfd));
    expect(entry).toEqual({ name: 'Åse Ågård', address: 'Østre Stationsvej 1', city: 'Århus', previous: false });
    expect(entry.name).not.toBe('Åse Ågård'.normalize('NFD')); // the test's input really was decomposed
  });

  it('reads a Windows-1252 file (Danish Excel) from its first non-UTF-8 byte on', async () => {
    const csv = 'name;address;city\nAnne Hansen;Vestergade 1;Aarhus C\nSøren Ærø;Åvej 2;Højbjerg\n';
    const cp1252 = Buffer.from(csv, 'latin1');
    expect(cp1252.includes(Buffer.from([0xf8]))).toBe(true);
    for (const size of [1, 5, 1 << 16]) {
      const entries = await readOk(cp1252, size);
      expect(entries.map((e) => [e.name, e.address, e.city])).toEqual([
        ['Anne Hansen', 'Vestergade 1', 'Aarhus C'],
        ['Søren Ærø', 'Åvej 2', 'Højbjerg'],
      ]);
    }
  });

  it('gives the same entries for every chunk size (multi-byte letters and "" split)', async () => {
    const csv = utf8('\ufeffname;address\n"Søren ""Sø"" Ørsted";"Åvej 1"\nÆble Å;Øvej 2\n"x""";"y"\n');
    const whole = await readOk(csv);
    expect(whole).toHaveLength(3);
    expect(whole[0].name).toBe('Søren "Sø" Ørsted');
    expect(whole[2].name).toBe('x"');
    for (let size = 1; size <= 12; size++) expect(await readOk(csv, size)).toEqual(whole);
  });

  it('reads a last row without line end; skips empty rows', async () => {
    expect(await readOk(utf8('name,address\n\n , \nAnne,Vej 1'))).toEqual([{ name: 'Anne', address: 'Vej 1', previous: false }]);
  });
});

describe('parseListCsv: bad rows and files', () => {
  it('skips bad rows, yields the good ones, then throws with physical line numbers only', async () => {
    const csv = [
      'name;address;postal_code', // 1
      'Anne Hansen;Vestergade 1;8000', // 2
      '"Bo\nJensen";"Nørregade\n1";8000', // 3-5: one row over three lines
      ';Vestergade 2;8000', // 6: no name
      'Carl Holm;;8000', // 7: no address
      'Dorte Lund;Vej 3;8000;extra', // 8: more fields than columns
      'Eva Dam;Vej 4;8000;;', // 9: empty extra fields are fine
      '"Finn Bach;Vej 5;8000', // 10: unterminated quote to the end
      'Gert Ravn;Vej 6;8000',
    ].join('\n');
    const { entries, error } = await read(utf8(csv), 7);
    expect(entries.map((e) => e.name)).toEqual(['Anne Hansen', 'Bo\nJensen', 'Eva Dam']);
    expect(error).toBeInstanceOf(ListFileRowsError);
    const rows = error as ListFileRowsError;
    expect(rows.lines).toEqual([6, 7, 8, 10]);
    expect(rows.count).toBe(4);
    expect(rows.message).not.toMatch(/Hansen|Holm|Lund|Vej/);
  });

  it('refuses a header naming none of the columns, and an empty file', async () => {
    const unknown = await read(utf8('foo,bar\n1,2\n'));
    expect(unknown.error).toBeInstanceOf(ListFileFormatError);
    expect((unknown.error as ListFileFormatError).problem).toBe('unknown_columns');
    const empty = await read(utf8(''));
    expect((empty.error as ListFileFormatError).problem).toBe('empty_file');
    const blank = await read(utf8('\n\n'));
    expect((blank.error as ListFileFormatError).problem).toBe('empty_file');
  });
});

describe('incompleteUtf8Tail', () => {
  it('counts the bytes of an unfinished sequence at the end', () => {
    const oe = utf8('ø'); // 2 bytes
    const euro = utf8('€'); // 3 bytes
    expect(incompleteUtf8Tail(utf8('abc'))).toBe(0);
    expect(incompleteUtf8Tail(oe)).toBe(0);
    expect(incompleteUtf8Tail(oe.subarray(0, 1))).toBe(1);
    expect(incompleteUtf8Tail(euro.subarray(0, 2))).toBe(2);
    expect(incompleteUtf8Tail(Buffer.concat([utf8('a'), euro.subarray(0, 1)]))).toBe(1);
  });
});

describe('parseListCsv: bounded memory on broken files', () => {
  it('an unterminated quote swallowing the rest of a long file costs one skipped row, not the file in memory', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `Person ${i};Vej ${i}`);
    const csv = utf8(['name;address', 'Anne;Vej 1', '"Bo;Vej 2', ...rows].join('\n'));
    const { entries, error } = await read(csv, 4096);
    expect(entries.map((e) => e.name)).toEqual(['Anne']);
    expect((error as ListFileRowsError).lines).toEqual([3]);
  });

  it('a file without line ends is refused as having no header row', async () => {
    const { error } = await read(utf8('name,'.repeat(30_000)), 4096);
    expect((error as ListFileFormatError).problem).toBe('missing_header');
  });
});
