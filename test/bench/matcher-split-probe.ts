/**
 * Where an embedded matcher thread's CPU goes per row, stage by stage, on one thread without the
 * rest of the deployment (docs/performance.md "Measurements", session 19 ematch10): the bench's
 * rows (pipeline.bench.ts: a fifth list members, seed 11) as the matcher reads them (Avro person →
 * fromAvroPerson), checked in chunks of CHUNK_ROWS against the bench's 200,000-entry list
 * (checkPeople, the person-only live path), then stored as the embedded store does
 * (embedded/jobs.ts putResults): runs, recordParts (each result's JSON.stringify and the counts),
 * the format-2 bytes, the verdict columns, and the store's own insert into the results file
 * (openEmbeddedDatabases, createEmbeddedJobStore's table), committed every PROBE_COMMIT_CHUNKS
 * chunks (the matcher's batch, default 4).
 * Prints the thread's CPU seconds per 1,000,000 rows per stage, PROBE_PASSES times (default 3).
 *
 *   PROBE_ROWS=200000 node test/bench/matcher-split-probe.ts
 *
 * Not part of `npm run bench` (no .bench.ts): a tool for the person changing the matcher's path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildListIndex, checkPeople } from '../../services/domain/index.ts';
import type { CheckOptions, PersonInput } from '../../services/domain/types.ts';
import { fromAvroPerson, toAvroPerson, type RowResult } from '../../services/pipeline/events.ts';
import { createCommaRecordWriter } from '../../services/platform/store/embedded/comma-record-bytes.ts';
import { openEmbeddedDatabases } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore, EMBEDDED_RECORD_FORMAT, INSERT_RECORD_SQL } from '../../services/platform/store/embedded/jobs.ts';
import { recordParts, resultRuns } from '../../services/platform/store/job-results.ts';
import { verdictColumnsOf } from '../../services/platform/store/result-verdicts.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { CHUNK_ROWS, LIST_ENTRIES, SEED } from './pipeline.bench.ts';

const ROWS = Number(process.env.PROBE_ROWS ?? 200_000);
const PASSES = Number(process.env.PROBE_PASSES ?? 3);
const COMMIT_CHUNKS = Number(process.env.PROBE_COMMIT_CHUNKS ?? 4);
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };

/** The bench's people (pipeline.bench.ts jobBody) as JSON reads them, ids r0… */
function benchPeople(): PersonInput[] {
  const people: PersonInput[] = [];
  let id = 0;
  for (const { previous: _previous, ...person } of generateListEntries(Math.round(ROWS * 0.2), SEED)) people.push({ id: `r${id++}`, ...person });
  for (let batch = 0; id < ROWS; batch++) {
    for (const person of generatePeople(Math.min(100_000, ROWS - id), `${SEED}-${batch}`)) people.push({ ...person, id: `r${id++}` });
  }
  return people.map((p) => JSON.parse(JSON.stringify(p)) as PersonInput);
}

function threadCpuSeconds(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1e6;
}

const avro = benchPeople().map(toAvroPerson);
const index = buildListIndex(generateListEntries(LIST_ENTRIES, SEED));
const dir = mkdtempSync(join(tmpdir(), 'matcher-split-'));
const databases = openEmbeddedDatabases(dir);
createEmbeddedJobStore(databases.main, databases.results);
const db = databases.results;
const insert = db.prepare(INSERT_RECORD_SQL);
const commaBytes = createCommaRecordWriter();
try {
  for (let pass = 0; pass < PASSES; pass++) {
    const seconds = { fromAvro: 0, check: 0, runs: 0, recordParts: 0, bytes: 0, verdicts: 0, sqlite: 0 };
    let at = threadCpuSeconds();
    const lap = (stage: keyof typeof seconds) => {
      const now = threadCpuSeconds();
      seconds[stage] += now - at;
      at = now;
    };
    for (let first = 0, chunk = 0; first < ROWS; first += CHUNK_ROWS, chunk++) {
      const people = avro.slice(first, first + CHUNK_ROWS).map(fromAvroPerson);
      lap('fromAvro');
      const checked = checkPeople(index, people, OPTIONS);
      lap('check');
      const rows: RowResult[] = checked.map((result, i) => ({ row: first + i, cells: null, result }));
      const runs = resultRuns(rows, () => false);
      lap('runs');
      if (!db.isTransaction) db.exec('BEGIN IMMEDIATE');
      for (const run of runs) {
        const parts = recordParts(run);
        const counts = JSON.stringify(parts.counts);
        lap('recordParts');
        const bytes = commaBytes(parts.results);
        lap('bytes');
        const verdicts = verdictColumnsOf(parts.results);
        lap('verdicts');
        insert.run(`job${pass}`, parts.first_row, parts.last_row, '2026-12-31', counts, bytes.results, parts.cells, EMBEDDED_RECORD_FORMAT,
          verdicts.ids, verdicts.verdicts, verdicts.verdict_rows, bytes.line_ends);
        lap('sqlite');
      }
      if ((chunk + 1) % COMMIT_CHUNKS === 0 || first + CHUNK_ROWS >= ROWS) db.exec('COMMIT');
      lap('sqlite');
    }
    const perMillion = Object.fromEntries(Object.entries(seconds).map(([stage, s]) => [stage, Number((s * 1e6 / ROWS).toFixed(3))]));
    console.log(JSON.stringify({ pass, rows: ROWS, commit_chunks: COMMIT_CHUNKS, cpu_s_per_million: perMillion }));
  }
} finally {
  databases.close();
  rmSync(dir, { recursive: true, force: true });
}
