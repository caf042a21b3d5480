import { describe, expect, it } from 'vitest';
import {
  CPR_LAYOUT,
  CPR_RECORD_LENGTH,
  cprFileLines,
  parseCprFile,
  writeCprFile,
  type CprRecord,
  type CprWriteRecord,
} from '../../../../services/registers/lists/cpr-format.ts';
import { ListFileFormatError, ListFileRowsError } from '../../../../services/registers/lists/list-file-errors.ts';

const soeren: CprWriteRecord = {
  last_name: 'Sørensen',
  first_name: 'Søren Åge',
  address: 'Gammel Kongevej 12A, 1. tv',
  postal_code: '1850',
  city: 'Frederiksberg C',
  kommunekode: '147',
  vejkode: '2345',
  husnummer: '12A',
  etage: '1',
  door: 'tv',
};
const soerenBefore: CprWriteRecord = {
  ...soeren,
  address: 'Ærøvej 3',
  postal_code: '5970',
  city: 'Ærøskøbing',
  kommunekode: '0492',
  vejkode: '0017',
  husnummer: '3',
  etage: '',
  door: '',
  previous: true,
};

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function readAll(bytes: Uint8Array, chunkSize = 1 << 16): Promise<CprRecord[]> {
  const out: CprRecord[] = [];
  for await (const record of parseCprFile(chunked(bytes, chunkSize))) out.push(record);
  return out;
}

/** Reads to the end and returns what was yielded plus the error thrown at the end, if any. */
async function readWithError(bytes: Uint8Array): Promise<{ records: CprRecord[]; error: unknown }> {
  const records: CprRecord[] = [];
  try {
    for await (const record of parseCprFile(chunked(bytes, 97))) records.push(record);
    return { records, error: null };
  } catch (error) {
    return { records, error };
  }
}

const latin1 = (lines: string[]) => Buffer.from(lines.map((l) => `${l}\r\n`).join(''), 'latin1');
const fileLines = (records: CprWriteRecord[]) => [...cprFileLines('2026-01-01', records)];

describe('CPR_LAYOUT', () => {
  it('places the published fields where docs/decisions.md §12 says, door after Etage', () => {
    const at = Object.fromEntries(CPR_LAYOUT.map((f) => [f.key, [f.position, f.width]]));
    expect(at).toEqual({
      name: [1, 34],
      address: [36, 34],
      locality: [71, 34],
      postal: [106, 25],
      history: [132, 3],
      kommunekode: [136, 4],
      vejkode: [141, 4],
      husnummer: [146, 4],
      etage: [151, 2],
      door: [154, 4],
    });
    expect(CPR_RECORD_LENGTH).toBe(157);
  });
});

describe('writeCprFile + parseCprFile', () => {
  it('round-trips header, names with æøå, current and previous address', async () => {
    const file = writeCprFile('2026-01-15', [soeren, soerenBefore]);
    const records = await readAll(file);
    expect(records).toEqual([
      { type: 'header', published_on: '2026-01-15' },
      {
        type: 'entry',
        entry: {
          name: 'Sørensen,Søren Åge',
          address: 'Gammel Kongevej 12A, 1. tv',
          postal_code: '1850',
          city: 'Frederiksberg C',
          kvhx: '01472345_12A__1__tv',
          previous: false,
        },
      },
      {
        type: 'entry',
        entry: {
          name: 'Sørensen,Søren Åge',
          address: 'Ærøvej 3',
          postal_code: '5970',
          city: 'Ærøskøbing',
          kvhx: '04920017___3_______',
          previous: true,
        },
      },
    ]);
  });

  it('writes ISO 8859-1: one byte per letter, fixed-width records, CRLF', () => {
    const file = writeCprFile('2026-01-15', [soeren]);
    expect(file.includes(Buffer.from([0xf8]))).toBe(true); // ø
    expect(file.includes(Buffer.from('ø', 'utf8'))).toBe(false);
    const lines = file.toString('latin1').split('\r\n');
    expect(lines[0]).toBe('Publiceringsdato#2026-01-15');
    expect(lines[1].startsWith('Personnavn')).toBe(true);
    expect(lines[2]).toHaveLength(CPR_RECORD_LENGTH);
    expect(lines[2].slice(0, 35)).toBe('Sørensen,Søren Åge'.padEnd(34) + '#');
    expect(lines[2].slice(135, 139)).toBe('0147');
    expect(lines.at(-1)).toBe('');
  });

  it('reads the same entries whatever the chunk boundaries', async () => {
    const file = writeCprFile('2026-01-15', [soeren, soerenBefore, soeren]);
    const whole = await readAll(file);
    for (const size of [1, 2, 3, 7, 158, 159, 500]) expect(await readAll(file, size)).toEqual(whole);
  });

  it('accepts LF line ends, blank lines and a DOS end-of-file mark', async () => {
    const text = fileLines([soeren]).join('\n') + '\n\n\x1a';
    const records = await readAll(Buffer.from(text, 'latin1'));
    expect(records.map((r) => r.type)).toEqual(['header', 'entry']);
  });

  it('reads other date forms of the header record', async () => {
    const [, columns, entry] = fileLines([soeren]);
    for (const [header, date] of [
      ['Robinsonlisten pr. 15.01.2026', '2026-01-15'],
      ['DANNET 20260115', '2026-01-15'],
      ['15-01-2026', '2026-01-15'],
    ]) {
      const records = await readAll(latin1([header, columns, entry]));
      expect(records[0]).toEqual({ type: 'header', published_on: date });
    }
  });

  it('keeps a record whose codes make no KVHX, without kvhx', async () => {
    const records = await readAll(latin1(fileLines([{ ...soeren, husnummer: '' }])));
    const entry = records[1].type === 'entry' ? records[1].entry : null;
    expect(entry).toMatchObject({ name: 'Sørensen,Søren Åge', postal_code: '1850' });
    expect(entry).not.toHaveProperty('kvhx');
  });

  it('streams: the first entry is yielded before the rest of the file is read', async () => {
    const file = writeCprFile('2026-01-15', Array.from({ length: 1000 }, () => soeren));
    let pulled = 0;
    async function* counting(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < file.length; i += 1024) {
        pulled++;
        yield file.subarray(i, i + 1024);
      }
    }
    const records = parseCprFile(counting());
    await records.next(); // header
    await records.next(); // first entry
    expect(pulled).toBeLessThanOrEqual(2);
    await records.return(undefined);
  });
});

describe('parseCprFile: malformed input', () => {
  it('skips malformed records, yields every good one, then throws with line numbers only', async () => {
    const [header, columns, good] = fileLines([soeren]);
    const lines = [
      header, // 1
      columns, // 2
      good, // 3
      good.slice(0, 34) + '|' + good.slice(35), // 4: separator missing
      good.slice(0, 105) + 'XXXX Frederiksberg C'.padEnd(25) + good.slice(130), // 5: no postal code
      good.slice(0, 135) + 'AB12' + good.slice(139), // 6: kommunekode not digits
      good.slice(0, 131) + '?  ' + good.slice(134), // 7: unknown history mark
      good.slice(0, 120), // 8: cut short
      ' '.repeat(34) + good.slice(34), // 9: no name
      good, // 10
    ];
    const { records, error } = await readWithError(latin1(lines));
    expect(records.filter((r) => r.type === 'entry')).toHaveLength(2);
    expect(error).toBeInstanceOf(ListFileRowsError);
    const rows = error as ListFileRowsError;
    expect(rows.count).toBe(6);
    expect(rows.lines).toEqual([4, 5, 6, 7, 8, 9]);
    expect(rows.entriesRead).toBe(2);
    expect(rows.message).not.toMatch(/Sørensen|Søren|Kongevej|Frederiksberg/);
  });

  it('refuses a file without publication date, column names or records, or with another layout', async () => {
    const [header, columns, good] = fileLines([soeren]);
    const problem = async (lines: string[]) => {
      const { error } = await readWithError(latin1(lines));
      expect(error).toBeInstanceOf(ListFileFormatError);
      return (error as ListFileFormatError).problem;
    };
    expect(await problem([columns, good])).toBe('missing_header');
    expect(await problem([good])).toBe('missing_header');
    expect(await problem([header, good])).toBe('missing_header');
    expect(await problem([header])).toBe('missing_columns');
    expect(await problem([])).toBe('empty_file');
    expect(await problem([header, columns.replace('#', ' #'), good])).toBe('unknown_columns');
  });

  it('a line without end (binary or broken file) is one malformed line, and is not kept', async () => {
    const [header, columns, good] = fileLines([soeren]);
    const text = [header, columns, good, 'x'.repeat(200_000), good].join('\r\n') + '\r\n';
    const { records, error } = await readWithError(Buffer.from(text, 'latin1'));
    expect(records.filter((r) => r.type === 'entry')).toHaveLength(2);
    expect((error as ListFileRowsError).lines).toEqual([4]);
    const noLineEnds = await readWithError(Buffer.from('x'.repeat(200_000), 'latin1'));
    expect((noLineEnds.error as ListFileFormatError).problem).toBe('missing_header');
  });

  it('a header-only file with columns is a valid, empty list', async () => {
    const [header, columns] = fileLines([]);
    expect(await readAll(latin1([header, columns]))).toEqual([{ type: 'header', published_on: '2026-01-01' }]);
  });
});

describe('writeCprFile: refuses what the file cannot carry', () => {
  it('too wide a field, a character outside latin1, a # inside a field, a bad date', () => {
    expect(() => writeCprFile('2026-01-01', [{ ...soeren, address: 'x'.repeat(35) }])).toThrow(/Standardadresse/);
    expect(() => writeCprFile('2026-01-01', [{ ...soeren, first_name: 'Łukasz' }])).toThrow(RangeError);
    expect(() => writeCprFile('2026-01-01', [{ ...soeren, city: 'By#2' }])).toThrow(RangeError);
    expect(() => writeCprFile('2026-13-01', [soeren])).toThrow(/YYYY-MM-DD/);
  });
});
