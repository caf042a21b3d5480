import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { emptyLevelCounts } from '../../../services/domain/check-job.ts';
import type { Locale } from '../../../services/domain/types.ts';
import type { CsvDialect } from '../../../services/ingest/files/csv-reader.ts';
import { neutraliseFormula, outputCells, verdictHeadersOf, writeResultFile, type ResultFileRow, type ResultFileSpec } from '../../../services/ingest/files/result-file.ts';
import { byteOrderMark, encodeText, type TextEncodingName } from '../../../services/ingest/files/text-encoding.ts';
import { OWN_LIST, streamResultFile, type ResultFileChange, type ResultFileRows } from '../../../services/ingest/uploads/result-file.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import type { JobRecord, JobStore, ResultRow } from '../../../services/platform/store/jobs-port.ts';
import { RESULT_SHAPE_COUNT, resultShapeRows } from '../../fixtures/result-shapes.ts';

/**
 * The result file read from the stored lines (docs/architecture.md "Result files": only the verdict
 * fields cut out, verdicts cached, the verdict text written once per verdict) is, byte for byte,
 * the file the whole-result path made: every stored result shape, every CSV dialect a job's input
 * can have (encoding with or without BOM × delimiter), with and without a header row, JSON jobs,
 * both locales, company, phone and change columns, each row filter. The reference below is the
 * path as it was: readResults (every result parsed whole), each row's cells through outputCells,
 * quoted by the CSV rule, the text encoded at once.
 */
const ENCODINGS: TextEncodingName[] = ['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'windows-1252'];
const DELIMITERS: Array<CsvDialect['delimiter']> = [';', ',', '\t', '|'];
const COLUMNS = ['Navn', 'Adresse', 'Noter'];
const ROWS = 3 * RESULT_SHAPE_COUNT * 7;

/** Input cells that quoting and formula neutralising must treat right, some rows short, some long. */
const CELLS: Array<Array<string | null> | null> = [
  null,
  ['Anne Hansen', 'Gl. Kongevej 12 A, 3 tv, 1610 København V', '=HYPERLINK("x")'],
  ['"quoted"', 'a;b,c\td|e', 'line\r\nbreak'],
  ['+45 12 34 56 78', '-12,5', '@SUM(A1)'],
  ['kort'],
  ['lang', null, 'række', 'ekstra 1', '=ekstra 2'],
  ['😀 Ærø', '\u2028', ''],
];

function storedRows(): ResultRow[] {
  return resultShapeRows(ROWS).map((r, i) => ({ ...r, cells: CELLS[i % CELLS.length] ?? r.cells }));
}

function jobOf(id: string, more: Partial<JobRecord>): JobRecord {
  const now = '2026-11-27T06:00:00.000Z';
  return {
    id, org_id: 'org', mode: 'live', source: 'upload', status: 'done', filename: 'kunder.csv', file_format: 'csv',
    row_count: ROWS, processed_count: ROWS, allowed_count: 1, blocked_count: 2, manual_count: 3, level_counts: emptyLevelCounts(),
    columns: COLUMNS, column_mapping: null, options: {}, preview: [], price: null,
    list_version: { id: '00000000-0000-4000-8000-000000000001', source: 'cpr', published_on: '2026-01-01' },
    certificate_token: null, error: null, delete_after: '2999-01-01T00:00:00.000Z', created_at: now,
    finished_at: now, callback_url: null, callback: null, external_ref: null, key_hash: 'h', input_sha256: null, updated_at: now,
    ...more,
  };
}

class Collect extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.chunks.push(Buffer.from(chunk));
    done();
  }
  bytes() {
    return Buffer.concat(this.chunks);
  }
}

interface Variant {
  job: JobRecord;
  locale: Locale;
  rows?: ResultFileRows;
  change?: ResultFileChange;
}

/** The file as the whole-result path wrote it (see the top of this file). */
async function referenceFile(jobs: JobStore, v: Variant): Promise<Buffer> {
  const { job, locale } = v;
  const json = job.file_format === null;
  const dialect = job.csv_dialect ?? (json ? { encoding: 'utf-8', delimiter: ',' } : { encoding: 'utf-8', delimiter: ';' });
  const header = json ? ['id'] : (job.column_mapping?.header_row ?? 0) >= 0 ? job.columns : null;
  const width = json ? 1 : job.columns.length;
  const spec: ResultFileSpec = {
    format: 'csv', csv: dialect, header, columnCount: width, locale, changes: job.source === 'monitor',
    checks: { companies: job.options.check_companies === true, phones: job.options.check_phones === true },
  };
  const delimiter = dialect.delimiter;
  const needsQuotes = (s: string) => s.includes('"') || s.includes('\r') || s.includes('\n') || s.includes(delimiter);
  const field = (value: string) => {
    const safe = neutraliseFormula(value);
    return needsQuotes(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  const headerCells = [...Array.from({ length: width }, (_, i) => (header === null ? `${locale === 'da' ? 'Kolonne' : 'Column'} ${i + 1}` : (header[i] ?? ''))), ...verdictHeadersOf(spec)];
  let text = headerCells.map(field).join(delimiter) + '\r\n';
  let cursor: string | null = null;
  do {
    const page = await jobs.readResults(job.id, { cursor, limit: 10_000 });
    for (const row of page.rows) {
      if (v.rows && v.rows !== 'all' && row.result.status !== v.rows) continue;
      if (v.change !== undefined && (v.change === 'any' ? row.result.change == null : row.result.change !== v.change)) continue;
      const own = row.result.list_version;
      const fileRow: ResultFileRow = {
        cells: json ? [row.result.id] : (row.cells ?? []), result: row.result,
        list_version: own ? `${OWN_LIST[locale]} ${own.published_on}` : (job.list_version?.published_on ?? ''),
      };
      text += outputCells(fileRow, width, spec).map(field).join(delimiter) + '\r\n';
    }
    cursor = page.next_cursor;
  } while (cursor !== null);
  return Buffer.concat([byteOrderMark(dialect.encoding), encodeText(text, dialect.encoding)]);
}

async function newFile(jobs: JobStore, v: Variant): Promise<Buffer> {
  const out = new Collect();
  await streamResultFile(jobs, v.job, { locale: v.locale, ...(v.rows ? { rows: v.rows } : {}), ...(v.change ? { change: v.change } : {}) }, out);
  return out.bytes();
}

/**
 * A store holding `rows` for each job. `withoutVerdicts`: every other record as a writer from
 * before the verdict columns left it (NULL), read from its lines.
 */
async function storeWith(rows: ResultRow[], jobs: JobRecord[], options: { withoutVerdicts?: boolean } = {}): Promise<JobStore> {
  const db = new DatabaseSync(':memory:');
  const store = createEmbeddedJobStore(db);
  for (const job of jobs) {
    await store.createJob(job);
    await store.putResults(job.id, job.delete_after, rows);
  }
  if (options.withoutVerdicts) {
    const cleared = db.prepare('UPDATE check_result_records SET ids = NULL, verdicts = NULL, verdict_rows = NULL WHERE rowid % 2 = 0').run();
    expect(Number(cleared.changes)).toBeGreaterThan(0);
  }
  return store;
}

function expectSameBytes(actual: Buffer, expected: Buffer, what: string) {
  // The text on a difference, so the failing line shows; the bytes decide.
  if (!actual.equals(expected)) expect(actual.toString('latin1'), what).toBe(expected.toString('latin1'));
  expect(actual.equals(expected), what).toBe(true);
}

describe('the result file read from stored lines', () => {
  const rows = storedRows();

  it('equals the whole-result file byte for byte in every dialect, with and without a header, in both locales', async () => {
    const variants: Variant[] = [];
    for (const encoding of ENCODINGS) {
      for (const delimiter of DELIMITERS) {
        for (const headerRow of [0, -1]) {
          const id = crypto.randomUUID();
          const job = jobOf(id, { csv_dialect: { encoding, delimiter }, column_mapping: headerRow === 0 ? null : { header_row: -1 } });
          variants.push({ job, locale: encoding === 'windows-1252' || delimiter === '|' ? 'en' : 'da' });
        }
      }
    }
    const jobs = await storeWith(rows, variants.map((v) => v.job));
    for (const v of variants) {
      const expected = await referenceFile(jobs, v);
      expect(expected.length).toBeGreaterThan(ROWS * 50);
      expectSameBytes(await newFile(jobs, v), expected, `${JSON.stringify(v.job.csv_dialect)} header_row ${v.job.column_mapping ? -1 : 0}`);
    }
  });

  it.each([false, true])('equals it for JSON jobs, company, phone and change columns and every row filter (records without stored verdicts: %s)', async (withoutVerdicts) => {
    const json = jobOf(crypto.randomUUID(), { file_format: null, filename: null, columns: [], csv_dialect: null, source: 'api' });
    const checks = jobOf(crypto.randomUUID(), { options: { check_companies: true, check_phones: true }, csv_dialect: { encoding: 'utf-16le', delimiter: '\t' } });
    const monitor = jobOf(crypto.randomUUID(), { source: 'monitor', csv_dialect: { encoding: 'utf-8-bom', delimiter: ';' } });
    const jobs = await storeWith(rows, [json, checks, monitor], { withoutVerdicts });
    const variants: Variant[] = [];
    for (const locale of ['da', 'en'] as const) {
      for (const job of [json, checks, monitor]) for (const only of ['all', 'blocked', 'allowed', 'manual'] as const) variants.push({ job, locale, rows: only });
      for (const change of ['any', 'newly_blocked', 'released', 'changed_level'] as const) variants.push({ job: monitor, locale, change });
    }
    for (const v of variants) {
      expectSameBytes(await newFile(jobs, v), await referenceFile(jobs, v), `${v.job.source} ${v.locale} ${v.rows ?? ''} ${v.change ?? ''}`);
    }
  });

  it('writes the same bytes from rows whose results are each their own object (other callers of writeResultFile)', async () => {
    const job = jobOf(crypto.randomUUID(), { csv_dialect: { encoding: 'windows-1252', delimiter: ',' }, options: { check_companies: true } });
    const jobs = await storeWith(rows, [job]);
    const out = new Collect();
    const page = await jobs.readResults(job.id, { limit: 10_000 });
    async function* fileRows(): AsyncIterable<ResultFileRow> {
      for (const row of page.rows) {
        const own = row.result.list_version;
        yield { cells: row.cells ?? [], result: row.result, list_version: own ? `${OWN_LIST.da} ${own.published_on}` : '2026-01-01' };
      }
    }
    await writeResultFile(out, {
      format: 'csv', csv: { encoding: 'windows-1252', delimiter: ',' }, header: COLUMNS, columnCount: 3, locale: 'da', changes: false, checks: { companies: true, phones: false },
    }, fileRows());
    expectSameBytes(out.bytes(), await referenceFile(jobs, { job, locale: 'da' }), 'writeResultFile');
  });

  it('puts each row\'s own list version beside a result object shared by rows', async () => {
    const [shared] = rows;
    const out = new Collect();
    async function* fileRows(): AsyncIterable<ResultFileRow> {
      yield { cells: ['a'], result: shared.result, list_version: '2026-01-01' };
      yield { cells: ['b'], result: shared.result, list_version: 'egen liste 2026-02-02' };
    }
    await writeResultFile(out, { format: 'csv', csv: { encoding: 'utf-8', delimiter: ';' }, header: ['x'], columnCount: 1, locale: 'da' }, fileRows());
    const lines = out.bytes().toString('utf8').split('\r\n');
    expect(lines[1]).toContain(';2026-01-01;');
    expect(lines[2]).toContain(';egen liste 2026-02-02;');
  });
});
