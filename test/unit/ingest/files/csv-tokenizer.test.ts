import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCsvTokenizer, type CsvRecord } from '../../../../services/ingest/files/csv-tokenizer.ts';

function tokenize(text: string, delimiter = ',', pieces: number[] = [], max?: number): CsvRecord[] {
  const tokenizer = createCsvTokenizer(delimiter, max);
  const out: CsvRecord[] = [];
  let at = 0;
  for (const cut of [...pieces].sort((a, b) => a - b)) {
    out.push(...tokenizer.push(text.slice(at, cut)));
    at = cut;
  }
  out.push(...tokenizer.push(text.slice(at)));
  out.push(...tokenizer.end());
  return out;
}

const fields = (records: CsvRecord[]) => records.map((r) => r.fields);

describe('csv tokenizer (RFC 4180)', () => {
  it('splits on the delimiter and CRLF or LF, with or without a final line break', () => {
    expect(fields(tokenize('a;b\r\nc;d\ne;f', ';'))).toEqual([['a', 'b'], ['c', 'd'], ['e', 'f']]);
    expect(fields(tokenize('a;b\r\n', ';'))).toEqual([['a', 'b']]);
  });

  it('reads quoted fields with delimiters, doubled quotes and line breaks inside', () => {
    const text = '"Vej 1, 2. tv","Anne ""A"" Berg"\r\n"two\r\nlines",x\r\n';
    expect(fields(tokenize(text))).toEqual([['Vej 1, 2. tv', 'Anne "A" Berg'], ['two\r\nlines', 'x']]);
  });

  it('keeps empty fields and gives blank lines as one empty field', () => {
    expect(fields(tokenize('a,,c\n\n,\n'))).toEqual([['a', '', 'c'], [''], ['', '']]);
  });

  it('numbers records by the physical line they start on', () => {
    const records = tokenize('h\n"a\nb\nc"\nd\n');
    expect(records.map((r) => r.line)).toEqual([1, 2, 5]);
  });

  it('reports an unterminated quote at the end with its line', () => {
    const records = tokenize('h\nok\n"never closed\nmore\n');
    expect(records.at(-1)).toEqual({ fields: [], line: 3, problem: 'unterminated_quote' });
  });

  it('reports an over-long record once and reads on after it', () => {
    const records = tokenize(`a\n"${'x'.repeat(500)}"\nb\n`, ',', [10, 100, 300], 100);
    expect(records.map((r) => [r.problem, r.line, r.fields])).toEqual([
      [null, 1, ['a']],
      ['too_long', 2, []],
      [null, 3, ['b']],
    ]);
  });

  it('gives the same records wherever the text is cut into chunks', () => {
    const cell = fc.oneof(fc.constantFrom('', 'a', 'æøå', '"', '""', ',', '\n', '\r\n', ' x '), fc.string({ maxLength: 5 }));
    const row = fc.array(cell, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 6 }), (rows, cuts) => {
        const text = rows.map((r) => r.map((c) => `"${c.replace(/"/g, '""')}"`).join(',')).join('\r\n') + '\r\n';
        const whole = tokenize(text);
        expect(fields(whole)).toEqual(rows);
        expect(tokenize(text, ',', cuts.map((c) => c % (text.length + 1)))).toEqual(whole);
      }),
    );
  });
});
