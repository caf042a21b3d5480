/**
 * Company and phone checks (docs/companies.md), on the embedded stores in one process:
 * - import of a 2,000,000-company CVR extract (JSON lines in the register's nested shape, written
 *   to a temp file first): time and peak RSS, with ratios to a bare read + JSON.parse of the same
 *   file (the floor any importer pays) and to the RSS before the import;
 * - POST /v2/company-checks with 1,000 companies against that 2,000,000-company register, and
 *   POST /v2/phone-checks with 500 numbers (file adapter, 500,000-number directory): p99 over
 *   loopback, each as a ratio to POST /v2/checks with 1,000 people measured in the same run.
 * Run alone: `npm exec -- node test/bench/companies.bench.ts`.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { issueApiKey } from '../../services/admin/keys.ts';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { buildApp } from '../../services/api/app.ts';
import { importCompanyRegister } from '../../services/companies/import.ts';
import { activateRegister, importRegister, utf8Lines } from '../../services/companies/register-import.ts';
import { createRegisters } from '../../services/companies/registers.ts';
import type { DirectoryEntry } from '../../services/domain/index.ts';
import type { PersonInput } from '../../services/domain/types.ts';
import { createActiveListIndex } from '../../services/lists/active-index.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from '../../services/platform/store/embedded/idempotency.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { createEmbeddedRegisterStore } from '../../services/platform/store/embedded/registers.ts';
import { generateCompanies, generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import type { Bench, BenchSection } from './types.ts';

const COMPANIES = 2_000_000;
const DIRECTORY_NUMBERS = 500_000;
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
    const active = createRegisters(registers, logger, { PHONE_DIRECTORY_TIMEOUT_MS: 5000 });
    const built = await withPeakRss(() => active.refresh());

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
      const ratio = (value: number, base: number) => Math.round((value / base) * 100) / 100;
      return {
        title: 'Company and phone checks (embedded stores)',
        metrics: [
          { name: `import of ${COMPANIES.toLocaleString('en')} companies (CVR JSON lines): time`, value: round(imported.ms / 1000), unit: 's', note: `${ratio(imported.ms, parseMs)}× a bare read + JSON.parse of the same file (${round(parseMs / 1000)} s)` },
          { name: 'import of 2,000,000 companies: peak RSS', value: imported.peakMb, unit: 'MB', note: `${ratio(imported.peakMb, rssBefore)}× the RSS before the import (${rssBefore} MB)` },
          { name: 'company register + directory lookup build (refresh): time', value: round(built.ms / 1000), unit: 's', note: `peak RSS ${built.peakMb} MB` },
          { name: 'POST /v2/checks, 1,000 people: p99 (baseline of this run)', value: people.latency.p99, unit: 'ms' },
          { name: 'POST /v2/company-checks, 1,000 companies: p99', value: companies.latency.p99, unit: 'ms', note: `${ratio(companies.latency.p99, people.latency.p99)}× /v2/checks with 1,000 people; p50 ${companies.latency.p50} ms` },
          { name: 'POST /v2/phone-checks, 500 numbers (file adapter): p99', value: phones.latency.p99, unit: 'ms', note: `${ratio(phones.latency.p99, people.latency.p99)}× /v2/checks with 1,000 people; p50 ${phones.latency.p50} ms` },
        ],
        notes: [
          `extract: ${COMPANIES.toLocaleString('en')} synthetic companies, ${Math.round(bytes / 2 ** 20)} MiB of JSON lines with former names, forms and owners; register versions in a node:sqlite file`,
          `company checks: 500 sole proprietorships (each owner checked against the ${LIST_ENTRIES.toLocaleString('en')}-entry list) and 500 other companies, by CVR`,
          `phone checks: ${DIRECTORY_NUMBERS.toLocaleString('en')}-number directory imported as a register version; 500 numbers in written Danish forms, a seventh not in the directory`,
          `autocannon, 1 connection, ${DURATION_SECONDS} s per measurement, in a worker thread on the same 2-core machine`,
        ],
      };
    } finally {
      await app.close();
    }
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
