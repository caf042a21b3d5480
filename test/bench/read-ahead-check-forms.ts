/**
 * The engine's time of forms of the read-ahead's check (docs/architecture.md "Read-ahead"), each
 * beside `SELECT 1` and the page statement, shuffled, on a job of 100,000 rows stored as the
 * projection stores them, in a database of its own on the test ClickHouse: which half of the check
 * costs what. Not a bench (no goal, no report); prints one JSON line. Run:
 * `node test/bench/read-ahead-check-forms.ts` (READ_AHEAD_FORM_ROUNDS, default 40).
 */
import { createClickHouseJobStore } from '../../services/platform/store/clickhouse/jobs.ts';
import { encodeCursor } from '../../services/platform/store/job-results.ts';
import { statement } from '../../services/platform/store/clickhouse/sql.ts';
import { makeJob, rows } from '../contract/jobs-store.contract.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';

const ROWS = 100_000;
const { conn, drop } = await openTestClickHouse('check_forms');
try {
  const store = createClickHouseJobStore(conn);
  const job = makeJob({ status: 'done' });
  await store.createJob(job);
  for (let from = 0; from < ROWS; from += 10_000) await store.putResults(job.id, job.delete_after, rows(from, from + 10_000));
  // A second revision, as a done job has several.
  await store.updateJob(job.id, { status: 'done', processed_count: ROWS });
  const post = async (query: string) => {
    const target = new URL(servers.clickhouseUrl);
    target.search = new URLSearchParams({ database: conn.database, param_id: job.id, param_org: job.org_id, param_mode: job.mode }).toString();
    const response = await fetch(target, { method: 'POST', body: query });
    const text = await response.text();
    if (!response.ok) throw new Error(`${response.status} ${text.slice(0, 200)}`);
    const summary = JSON.parse(response.headers.get('x-clickhouse-summary') ?? '{}') as { elapsed_ns?: string };
    return Number(summary.elapsed_ns ?? NaN) / 1e6;
  };
  const window = (table: string, columns: string) =>
    `SELECT ${columns} FROM ${table} WHERE job_id = {id:String} AND first_row > 8999 AND last_row > 9999 AND first_row <= 10000`;
  const both = (columns: string) => ['check_result_records_small_granules', 'check_result_records'].map((t) => window(t, columns)).join(' UNION ALL ');
  const status = "ifNull((SELECT toString(status) FROM check_jobs FINAL WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String}) = 'done', 0)";
  const forms: Record<string, string> = {
    select_1: 'SELECT 1 FORMAT Null',
    status_final: `SELECT ${status} FORMAT Null`,
    status_argmax: "SELECT toString(argMax(status, revision)) = 'done' FROM check_jobs WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String} FORMAT Null",
    records_both: `SELECT (SELECT count() FROM (${both('first_row')})) > 0 FORMAT Null`,
    records_new: `SELECT (SELECT count() FROM (${window('check_result_records_small_granules', 'first_row')})) > 0 FORMAT Null`,
    check_count: `SELECT ${status} AND (SELECT count() FROM (${both('first_row')})) > 0 FORMAT Null`,
    // The form the store asks (jobs.ts donePageStored).
    check_exists: `SELECT ${status} AND EXISTS (${both('1')}) FORMAT Null`,
    page: `(SELECT toUInt8(0) AS kind, toUInt32(0) AS first_row, toUInt32(0) AS last_row, toUInt8(0) AS record_format, doc AS payload
      FROM check_jobs FINAL WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String})
      UNION ALL (SELECT toUInt8(1), first_row, last_row, record_format, results FROM (${['check_result_records_small_granules', 'check_result_records'].map((t) =>
        `SELECT first_row, last_row, record_format, results FROM ${t} WHERE job_id = {id:String} AND first_row > 8999 AND last_row > 9999 AND first_row <= 20001`).join(' UNION ALL ')})
        ORDER BY first_row, last_row DESC LIMIT 1 BY first_row LIMIT 10001) FORMAT Null`,
  };
  const times = new Map<string, number[]>(Object.keys(forms).map((name) => [name, []]));
  for (let round = 0; round < Number(process.env.READ_AHEAD_FORM_ROUNDS ?? 40); round++) {
    for (const name of Object.keys(forms).sort(() => Math.random() - 0.5)) times.get(name)!.push(await post(forms[name]));
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  // The check as the route waits for it (request → answer, through the store: RowBinary over the
  // byte reader), against the same statement answered as JSONEachRow through @clickhouse/client
  // (conn.rows, as the store first asked it), alternating.
  const cursor = encodeCursor(job.id, 9999);
  const viaStore: number[] = [];
  const viaRows: number[] = [];
  for (let round = 0; round < Number(process.env.READ_AHEAD_FORM_ROUNDS ?? 40); round++) {
    const store1 = async () => {
      const t = performance.now();
      if (!(await store.donePageStored!({ org_id: job.org_id, mode: job.mode }, job.id, { cursor, limit: 10_000 }))) throw new Error('refused');
      viaStore.push(performance.now() - t);
    };
    const rows1 = async () => {
      const t = performance.now();
      await conn.rows(statement(forms.check_exists.replace(' FORMAT Null', '').replaceAll('{id:String}', `'${job.id}'`)
        .replaceAll('{org:String}', `'${job.org_id}'`).replaceAll('{mode:String}', `'${job.mode}'`).replaceAll('FROM check_', `FROM ${conn.database}.check_`)));
      viaRows.push(performance.now() - t);
    };
    for (const step of round % 2 === 0 ? [store1, rows1] : [rows1, store1]) await step();
  }
  console.log(JSON.stringify({
    load: (await import('node:os')).loadavg()[0].toFixed(2),
    engine_median_ms: Object.fromEntries([...times].map(([n, v]) => [n, Math.round(median(v) * 100) / 100])),
    wall_median_ms: { check_row_binary: Math.round(median(viaStore) * 10) / 10, check_json_rows: Math.round(median(viaRows) * 10) / 10 },
  }));
} finally {
  await drop();
}
