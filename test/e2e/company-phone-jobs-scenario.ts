/**
 * Company and phone checks inside check jobs (docs/decisions.md §17), written once against
 * a running deployment over real HTTP and run by uploads.embedded.test.ts and
 * uploads.distributed.test.ts (deployments started with `registers: true`: the add-ons, the
 * company register and the phone directory of test/support/pipeline.ts). A spreadsheet written by
 * exceljs with one row per §17 case goes upload → draft → start → done; the results API, the
 * result file and a JSON job with the test key all carry the company or phone outcome.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { makeSpreadsheets, type Rows } from '../support/files/spreadsheets.ts';
import { REGISTER_ROWS } from '../support/pipeline.ts';
import { approximateInWords, PHONE_OUTCOME_WORDS, STATUS_WORDS, VERDICT_HEADER, verdictInWords } from '../support/verdict-words.ts';
import { allResults, api, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';
import { readResultFile, upload } from './uploads-scenarios.ts';

type Json = Record<string, any>;

const HEADER = ['Kundenr.', 'Firma', 'CVR-nr.', 'Telefon'];
const OPTIONS = { check_people: false, check_companies: true, check_phones: true };

function sheetRows(): Rows {
  return [HEADER, ...REGISTER_ROWS.map(({ row }) => [row.id ?? null, row.company_name ?? null, row.cvr ?? null, row.phone ?? null])];
}

function expectRowResults(results: Json[]): void {
  expect(results).toHaveLength(REGISTER_ROWS.length);
  for (const [i, expected] of REGISTER_ROWS.entries()) {
    const r = results[i];
    expect([r.id, r.status, r.reasons, r.match.level], `row ${expected.row.id}`).toEqual([expected.row.id, expected.status, expected.reasons, expected.level]);
    if (expected.company) expect(r.company, `row ${expected.row.id}`).toMatchObject(expected.company);
    else expect(r, `row ${expected.row.id}`).not.toHaveProperty('company');
    expect(r.phone_lookup?.outcome ?? undefined, `row ${expected.row.id}`).toBe(expected.phone);
  }
  // An unlisted number never shows whom it belongs to.
  expect(JSON.stringify(results)).not.toContain('Hemmelig');
}

/** A spreadsheet job of companies and phones: every §17 row in the draft's preview, the results and the result file. */
export async function companyPhoneFileJob(d: Deployment, dir: string, serverLog?: () => string): Promise<void> {
  const [path] = await makeSpreadsheets(dir, [{ name: 'firmaer.xlsx', rows: sheetRows(), via: 'exceljs' }]);
  const created = await upload(d, { bytes: await readFile(path), filename: 'firmaer.xlsx' }, [{ name: 'options', value: JSON.stringify(OPTIONS) }]);
  // A refusal's cause is logged (api.file_refused), not answered: shown when there is one.
  expect(created.status, `${JSON.stringify(created.json)}\n${serverLog?.() ?? ''}`).toBe(202);
  const draft = created.json;
  expect(draft).toMatchObject({
    status: 'draft', column_mapping: { external_id: 'Kundenr.', company_name: 'Firma', cvr: 'CVR-nr.', phone: 'Telefon' }, options: OPTIONS,
  });
  // The draft's preview already checks against the active register and the imported directory.
  expectRowResults(draft.preview.map((p: Json) => p.result));

  const started = await api(d, 'POST', `/v2/check-jobs/${draft.id}/start`, {});
  expect(started.status, started.text).toBe(202);
  const job = await waitForJob(d, draft.id, isFinished);
  expect(job).toMatchObject({ status: 'done', row_count: REGISTER_ROWS.length, options: OPTIONS });
  const count = (status: string) => REGISTER_ROWS.filter((r) => r.status === status).length;
  expect([job.allowed_count, job.blocked_count, job.manual_count]).toEqual([count('allowed'), count('blocked'), count('manual')]);
  const { results } = await allResults(d, job.id);
  expectRowResults(results);

  const file = await fetch(new URL(`/v2/check-jobs/${job.id}/file`, d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}`, 'Accept-Language': 'en' } });
  expect(file.status).toBe(200);
  const back = await readResultFile(Buffer.from(await file.arrayBuffer()), 'xlsx');
  expect(back[0]).toEqual([
    ...HEADER, ...VERDICT_HEADER.en,
    'Company status', 'Company name', 'Company form', 'Phone lookup', 'Name in phone directory', 'Address in phone directory',
  ]);
  for (const [i, r] of results.entries()) {
    expect(back[i + 1].slice(HEADER.length), `row ${i}`).toEqual([
      ...verdictInWords(r, 'en'), job.list_version.published_on, approximateInWords(r, 'en'),
      r.company ? STATUS_WORDS.en[r.company.status] : '', r.company?.name ?? '', r.company?.company_form ?? '',
      r.phone_lookup ? PHONE_OUTCOME_WORDS.en[r.phone_lookup.outcome] : '', r.phone_lookup?.name ?? '', r.phone_lookup?.address ?? '',
    ]);
  }
}

/** A JSON job with the test key: §3's fixed company and phone answers, people checked too. */
export async function companyPhoneTestJsonJob(d: Deployment): Promise<void> {
  const people = [
    { id: 'a', cvr: '00000042' },
    { id: 'b', name: 'Anne Robinson', address: 'Vestergade 1, 8000 Aarhus C', phone: '12345678' },
    { id: 'c', company_name: 'Test ApS', phone: '12341111' },
    { id: 'd', phone: '+45 12 34 00 00' },
  ];
  const created = await api(d, 'POST', '/v2/check-jobs', { people, options: { check_companies: true, check_phones: true } }, d.testKey);
  expect(created.status, created.text).toBe(202);
  const job = await waitForJob(d, created.json.id, isFinished, 60_000, d.testKey);
  expect(job.status).toBe('done');
  const { results } = await allResults(d, job.id, 10_000, d.testKey);
  expect(results.map((r) => [r.id, r.status, r.reasons, r.company?.company_form ?? null, r.phone_lookup?.outcome ?? null])).toEqual([
    ['a', 'blocked', ['company_protected'], 'A/S', null],
    ['b', 'blocked', ['name_and_unit'], null, 'found'],
    ['c', 'manual', ['phone_unlisted'], 'ApS', 'unlisted'],
    ['d', 'manual', ['phone_not_found'], null, 'not_found'],
  ]);
}

