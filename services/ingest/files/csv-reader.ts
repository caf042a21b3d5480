import { createReadStream } from 'node:fs';
import { type CsvRecord, createCsvTokenizer } from './csv-tokenizer.ts';
import { FileRefusedError } from './refusal.ts';
import { createStreamDecoder, type TextEncodingName } from './text-encoding.ts';

/**
 * CSV and text uploads (docs/decisions.md §14): encoding and delimiter detected from the first bytes,
 * RFC 4180 records (csv-tokenizer.ts), read as a stream in 256 KiB pieces. Blank lines are no rows.
 */
type Row = Array<string | null>;

export type CsvDelimiter = ';' | ',' | '\t' | '|';

export interface CsvDialect {
  encoding: TextEncodingName;
  delimiter: CsvDelimiter;
}

const DELIMITERS: readonly CsvDelimiter[] = [';', ',', '\t', '|'];
const LINES_FOR_DETECTION = 20;

/**
 * The delimiter that splits the first lines most consistently: the one whose count per line (outside
 * quotes) is the same non-zero number on most lines; ties go to the larger count. A file with a
 * single column has none of them: `,` then, which splits nothing.
 */
export function detectDelimiter(headText: string): CsvDelimiter {
  const lines = headText
    .replace(/"(?:[^"]|"")*"/g, '')
    .split('\n')
    .filter((l) => l.trim() !== '');
  // The last line of a sample may be cut off; use it only if it is the only one.
  const sample = (lines.length > 1 ? lines.slice(0, -1) : lines).slice(0, LINES_FOR_DETECTION);
  let best: CsvDelimiter = ',';
  let bestScore = 0;
  let bestCount = 0;
  for (const d of DELIMITERS) {
    const counts = sample.map((l) => l.split(d).length - 1);
    const tally = new Map<number, number>();
    for (const c of counts) if (c > 0) tally.set(c, (tally.get(c) ?? 0) + 1);
    for (const [count, lineCount] of tally) {
      if (lineCount > bestScore || (lineCount === bestScore && count > bestCount)) {
        best = d;
        bestScore = lineCount;
        bestCount = count;
      }
    }
  }
  return best;
}

/** Row batches of a CSV file, cells '' → null, blank rows left out. Refuses a broken quote or an over-long record. */
export async function* readCsvBatches(path: string, encoding: TextEncodingName, delimiter: CsvDelimiter, onEncoding: (e: TextEncodingName) => void): AsyncGenerator<Row[]> {
  const decoder = createStreamDecoder(encoding);
  const tokenizer = createCsvTokenizer(delimiter);
  const toRows = (records: CsvRecord[]): Row[] => {
    const rows: Row[] = [];
    for (const record of records) {
      if (record.problem === 'unterminated_quote') throw new FileRefusedError('file_corrupt', 'a quote is never closed', record.line);
      if (record.problem === 'too_long') throw new FileRefusedError('file_corrupt', 'a row is far too long', record.line);
      const fields = record.fields;
      let blank = true;
      const cells: Row = new Array(fields.length);
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i];
        if (f === '') cells[i] = null;
        else {
          cells[i] = f;
          if (blank && f.trim() !== '') blank = false;
        }
      }
      if (!blank) rows.push(cells);
    }
    return rows;
  };
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream) {
      yield toRows(tokenizer.push(decoder.decode(chunk as Buffer)));
    }
    yield toRows([...tokenizer.push(decoder.end()), ...tokenizer.end()]);
  } finally {
    stream.destroy();
    onEncoding(decoder.encoding);
  }
}
