/**
 * Company and phone checks (docs/companies.md), on the embedded stores in one process:
 * - import of a 2,000,000-company CVR extract (JSON lines in the register's nested shape, written
 *   to a temp file first): time and peak RSS, with ratios to a bare read + JSON.parse of the same
 *   file (the floor any importer pays) and to the RSS before the import;
 * - the lookup build of that register and a 500,000-number directory (what every API process and
 *   matcher holds): time, peak RSS as a ratio to the RSS before the build, and the memory the
 *   lookups keep (heap + array buffers after GC, over the same before);
 * - POST /v2/company-checks with 1,000 companies against that 2,000,000-company register, and
 *   POST /v2/phone-checks with 500 numbers (file adapter, 500,000-number directory): p99 over
 *   loopback, each as a ratio to POST /v2/checks with 1,000 people measured in the same run;
 * - a check job of 100,000 rows with company and phone checks (npm start's wiring on the same
 *   database: API, matcher, projection in this process), POST until done, as a ratio to a
 *   person-only job of the same size in the same run.
 * Run alone: `npm exec -- node --expose-gc test/bench/companies.bench.ts`; BENCH_COMPANIES,
 * BENCH_DIRECTORY_NUMBERS and BENCH_JOB_ROWS give smaller sizes for development runs.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { issueApiKey } from '../../services/admin/keys.ts';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { buildApp } from '../../services/api/app.ts';
import { importCompanyRegister } from '../../services/registers/companies/import.ts';
import { activateRegister, importRegister, utf8Lines } from '../../services/registers/companies/register-import.ts';
import { createRegisters } from '../../services/registers/companies/registers.ts';
import { loadConfig } from '../../services/platform/config.ts';
import { openPlatform } from '../../services/platform/open-platform.ts';
import { createServiceContext, startApi, startMatcher, startProjection } from '../../services/processes.ts';
import type { DirectoryEntry } from '../../services/domain/index.ts';
import type { PersonInput } from '../../services/domain/types.ts';
import { createActiveListIndex } from '../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from '../../services/platform/store/embedded/idempotency.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { createEmbeddedRegisterStore } from '../../services/platform/store/embedded/registers.ts';
import { generateCompanies, generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import type { RegisterBuildFigures } from './register-build-child.ts';
import type { Bench, BenchSection } from './types.ts';

const run = promisify(execFile);

const COMPANIES = Number(process.env.BENCH_COMPANIES ?? 2_000_000);
const DIRECTORY_NUMBERS = Number(process.env.BENCH_DIRECTORY_NUMBERS ?? 500_000);
const JOB_ROWS = Number(process.env.BENCH_JOB_ROWS ?? 100_000);
const LIST_ENTRIES = 200_000;
const SEED = 11;
const DURATION_SECONDS = 10;

interface AutocannonResult {
  latency: { p50: number; p99: number };
  requests: { average: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

async function load(url: string, key: string, body: string): Promise<AutocannonResult> {
  const result = await autocannon({
    url, method: 'POST', body, connections: 1, duration: DURATION_SECONDS, workers: 1,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx and ${result.errors} errors`);
  return result;
}

/** Peak RSS while `work` runs, sampled every 50 ms (maxRSS of the process would include the earlier steps). */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; ms: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  const started = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peakMb: Math.round(peak / 2 ** 20), ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

/** Danish mobile-like numbers +452xxxxxxx, every tenth one unlisted. */
function* directoryEntries(count: number): Generator<DirectoryEntry> {
  const people = generatePeople(count, SEED);
  for (let i = 0; i < count; i++) {
    const p = people[i];
    yield { number: `+452${String(i).padStart(7, '0')}`, name: p.name ?? 'Ukendt', address: p.address ?? '', listed: i % 10 !== 0 };
  }
}

const bench: Bench = async (): Promise<BenchSection> => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-companies-'));
  const db = openEmbeddedDatabase(join(dir, 'robinson.sqlite'));
  const logger = silentLogger();
  try {
    // The extract on disk first, so generating it is not part of any figure.
    const extractPath = join(dir, 'cvr.jsonl');
    const out = createWriteStream(extractPath);
    // 500 sole proprietorships (their owners are checked against the list) and 500 other companies.
    const ownerCvrs: string[] = [];
    const otherCvrs: string[] = [];
    let bytes = 0;
    for (const company of generateCompanies(COMPANIES, SEED)) {
      const line = `${JSON.stringify(company.document)}\n`;
      bytes += line.length;
      const pick = company.expected.owner ? ownerCvrs : otherCvrs;
      if (pick.length < 500) pick.push(company.expected.cvr);
      if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve));
    }
    out.end();
    await finished(out);

    global.gc?.();
    const rssBefore = Math.round(process.memoryUsage.rss() / 2 ** 20);
    const parseStarted = performance.now();
    let parsed = 0;
    for await (const line of utf8Lines(createReadStream(extractPath, { highWaterMark: 1 << 20 }))) {
      if (line !== '') {
        JSON.parse(line);
        parsed += 1;
      }
    }
    const parseMs = performance.now() - parseStarted;
    if (parsed !== COMPANIES) throw new Error(`parsed ${parsed} lines`);

    global.gc?.();
    const registers = createEmbeddedRegisterStore(db);
    const imported = await withPeakRss(() => importCompanyRegister({ store: registers, logger }, { chunks: createReadStream(extractPath, { highWaterMark: 1 << 20 }) }));
    if (imported.value.version.record_count !== COMPANIES) throw new Error(`imported ${imported.value.version.record_count}`);
    await activateRegister({ store: registers, logger }, imported.value.version.id);
    const directory = await importRegister({ store: registers, logger }, { kind: 'phones' }, (async function* () {
      for (const record of directoryEntries(DIRECTORY_NUMBERS)) yield { record };
    })());
    await activateRegister({ store: registers, logger }, directory.version.id);
    // The build in a fresh process (its own figures, not the import's leftovers), then here for the checks.
    const fresh = await buildInFreshProcess(join(dir, 'robinson.sqlite'));
    if (fresh.companies !== COMPANIES) throw new Error(`the build indexed ${fresh.companies} companies`);
    let active: ReturnType<typeof createRegisters> | null = createRegisters(registers, logger, { PHONE_DIRECTORY_TIMEOUT_MS: 5000 });
    await active.refresh();

    const lists = createEmbeddedListStore(db);
    const versionId = randomUUID();
    await lists.createListVersion({ id: versionId, source: 'cpr', org_id: null, published_on: '2026-10-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0 });
    const entries = [...generateListEntries(LIST_ENTRIES, SEED)];
    for (let i = 0; i < entries.length; i += 10_000) await lists.appendListEntries(versionId, entries.slice(i, i + 10_000));
    await lists.sealListVersion(versionId);
    await lists.activateListVersion(versionId, new Date().toISOString());
    const activeIndex = createActiveListIndex({ listStore: lists, logger });
    await activeIndex.refresh();

    const accounts = createEmbeddedAccountStore(db);
    const org = await createOrganisation(accounts, { name: 'bench', addons: ['company', 'phone'] });
    const { key } = await issueApiKey(accounts, org.id, 'live');
    const app = buildApp({
      config: { RATE_LIMIT_PER_SECOND: 1_000_000, RATE_LIMIT_BURST: 1_000_000 },
      logger, accounts, lists, activeIndex, idempotency: createEmbeddedIdempotencyStore(db),
      companyRegister: active.companies, phoneDirectory: active.directory,
    });
    let jobs: { people: number; registers: number } | null = null;
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      // Half list members, half not, as the person-check bench (http.bench.ts).
      const members: PersonInput[] = entries.slice(0, 500).map(({ previous: _p, ...person }) => person);
      const peopleBody = JSON.stringify({ people: [...members, ...generatePeople(500, SEED + 1)] });
      const companiesBody = JSON.stringify({ companies: [...ownerCvrs, ...otherCvrs].map((cvr, i) => ({ id: String(i), cvr })) });
      // 500 numbers written as people do, some unknown.
      const phonesBody = JSON.stringify({ phones: Array.from({ length: 500 }, (_, i) => ({ id: String(i), phone: i % 7 === 0 ? `99 ${String(i).padStart(6, '0')}` : `2${String(i * 997).padStart(7, '0').replace(/(\d{3})(\d{2})(\d{2})/, '$1 $2 $3')}` })) });
      for (const [path, body] of [['/v2/company-checks', companiesBody], ['/v2/phone-checks', phonesBody]] as const) {
        const probe = await fetch(`${address}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
        if (probe.status !== 200) throw new Error(`${path} probe: ${probe.status} ${await probe.text()}`);
      }
      const people = await load(`${address}/v2/checks`, key, peopleBody);
      const companies = await load(`${address}/v2/company-checks`, key, companiesBody);
      const phones = await load(`${address}/v2/phone-checks`, key, phonesBody);
      await app.close();
      // The jobs run on npm start's wiring, which builds its own lookups: these go first.
      active = null;
      global.gc?.();
      jobs = await jobTimes(dir, key, entries.slice(0, JOB_ROWS / 5).map(({ previous: _p, ...person }) => person), [...ownerCvrs, ...otherCvrs]);
      const ratio = (value: number, base: number) => Math.round((value / base) * 100) / 100;
      return {
        title: 'Company and phone checks (embedded stores)',
        metrics: [
          { name: `import of ${COMPANIES.toLocaleString('en')} companies (CVR JSON lines): time`, value: round(imported.ms / 1000), unit: 's', note: `${ratio(imported.ms, parseMs)}× a bare read + JSON.parse of the same file (${round(parseMs / 1000)} s)` },
          { name: `import of ${COMPANIES.toLocaleString('en')} companies: peak RSS`, value: imported.peakMb, unit: 'MB', note: `${ratio(imported.peakMb, rssBefore)}× the RSS before the import (${rssBefore} MB)` },
          { name: 'company register + directory lookup build (refresh, fresh process): time', value: round(fresh.ms / 1000), unit: 's' },
          { name: 'company register + directory lookup build: peak RSS', value: fresh.peakMb, unit: 'MB', note: `${ratio(fresh.peakMb, fresh.rssBeforeMb)}× the RSS before the build (${fresh.rssBeforeMb} MB); ${fresh.peakMb - fresh.rssBeforeMb} MB over it` },
          { name: 'memory the lookups keep (heap + array buffers after GC)', value: fresh.keptMb, unit: 'MB', note: `${ratio(fresh.keptMb, fresh.rssBeforeMb)}× the RSS before the build; ${round((fresh.keptMb * 2 ** 20) / (COMPANIES + DIRECTORY_NUMBERS))} bytes per record` },
          { name: 'POST /v2/checks, 1,000 people: p99 (baseline of this run)', value: people.latency.p99, unit: 'ms' },
          { name: 'POST /v2/company-checks, 1,000 companies: p99', value: companies.latency.p99, unit: 'ms', note: `${ratio(companies.latency.p99, people.latency.p99)}× /v2/checks with 1,000 people; p50 ${companies.latency.p50} ms` },
          { name: 'POST /v2/phone-checks, 500 numbers (file adapter): p99', value: phones.latency.p99, unit: 'ms', note: `${ratio(phones.latency.p99, people.latency.p99)}× /v2/checks with 1,000 people; p50 ${phones.latency.p50} ms` },
          { name: `person-only job of ${JOB_ROWS.toLocaleString('en')} rows: POST → done (baseline of this run)`, value: round(jobs.people / 1000), unit: 's' },
          { name: `company/phone job of ${JOB_ROWS.toLocaleString('en')} rows: POST → done`, value: round(jobs.registers / 1000), unit: 's', note: `${ratio(jobs.registers, jobs.people)}× the person-only job of the same size` },
        ],
        notes: [
          `extract: ${COMPANIES.toLocaleString('en')} synthetic companies, ${Math.round(bytes / 2 ** 20)} MiB of JSON lines with former names, forms and owners; register versions in a node:sqlite file`,
          `company checks: 500 sole proprietorships (each owner checked against the ${LIST_ENTRIES.toLocaleString('en')}-entry list) and 500 other companies, by CVR`,
          `phone checks: ${DIRECTORY_NUMBERS.toLocaleString('en')}-number directory imported as a register version; 500 numbers in written Danish forms, a seventh not in the directory`,
          `autocannon, 1 connection, ${DURATION_SECONDS} s per measurement, in a worker thread on the same 2-core machine`,
          `jobs: JSON bodies on npm start's wiring (embedded stores and event log, matcher and projection in this process); the person-only job a fifth list members; the company/phone job: every row a CVR (half sole proprietorships whose owners are checked) and a number (a tenth unlisted, a seventh unknown), check_people left on (rows without a person skip it)`,
        ],
      };
    } finally {
      if (!jobs) await app.close();
    }
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Runs register-build-child.ts in a fresh Node process with --expose-gc; its JSON line. */
async function buildInFreshProcess(databasePath: string): Promise<RegisterBuildFigures> {
  const { stdout } = await run(process.execPath, ['--expose-gc', join(import.meta.dirname, 'register-build-child.ts'), databasePath], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as RegisterBuildFigures;
}

/** JSON job bodies: a person-only job and a company/phone job of JOB_ROWS rows each. */
function jobBodies(members: PersonInput[], cvrs: string[]): { people: string; registers: string } {
  const people = [...members, ...generatePeople(JOB_ROWS - members.length, SEED + 2)].map((p, i) => ({ ...p, id: `p${i}` }));
  const rows = Array.from({ length: JOB_ROWS }, (_, i) => ({
    id: `c${i}`,
    cvr: cvrs[i % cvrs.length],
    phone: i % 7 === 0 ? `99 ${String(i % 1_000_000).padStart(6, '0')}` : `+452${String((i * 7919) % DIRECTORY_NUMBERS).padStart(7, '0')}`,
  }));
  return {
    people: JSON.stringify({ people }),
    registers: JSON.stringify({ people: rows, options: { check_companies: true, check_phones: true } }),
  };
}

/** POST → done of each job on npm start's wiring over the bench's database (DATA_DIR = dir). */
async function jobTimes(dir: string, key: string, members: PersonInput[], cvrs: string[]): Promise<{ people: number; registers: number }> {
  const config = loadConfig({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_SEED: 'false', RETENTION_SWEEP_SECONDS: '0', PROJECTION_COUNT_INTERVAL_MS: '200' });
  const logger = silentLogger();
  const platform = await openPlatform(config, logger);
  const context = createServiceContext(platform, config, logger);
  const running = [await startProjection(context), await startMatcher(context)];
  const api = await startApi(context);
  running.push(api);
  try {
    const bodies = jobBodies(members, cvrs);
    const run = async (body: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${api.address}/v2/check-jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
      const job = (await response.json()) as { id: string };
      if (response.status !== 202) throw new Error(`job: ${response.status} ${JSON.stringify(job)}`);
      for (;;) {
        const state = (await (await fetch(`${api.address}/v2/check-jobs/${job.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; error: string | null };
        if (state.status === 'done') return performance.now() - started;
        if (state.status === 'failed') throw new Error(`job failed: ${state.error}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    // A small warm-up job of each kind, so neither figure carries a first build or JIT warm-up.
    await run(JSON.stringify({ people: members.slice(0, 10) }));
    await run(JSON.stringify({ people: [{ cvr: cvrs[0], phone: '+4520000001' }], options: { check_companies: true, check_phones: true } }));
    const people = await run(bodies.people);
    const registers = await run(bodies.registers);
    return { people, registers };
  } finally {
    for (const service of running.reverse()) await service.stop();
    await platform.close();
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
