/**
 * The register lookup build in a fresh process (companies.bench.ts): opens the bench's database,
 * builds the active company register and phone directory lookups as an API process or matcher
 * does (createRegisters().refresh()), and prints one JSON line: time, RSS before, peak RSS
 * (sampled every 20 ms) and what the lookups keep after GC. A fresh process, so the figures are
 * the build's own and not the import's leftovers. Run with --expose-gc.
 */
import { createRegisters } from '../../services/registers/companies/registers.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedRegisterStore } from '../../services/platform/store/embedded/registers.ts';

export interface RegisterBuildFigures {
  ms: number;
  rssBeforeMb: number;
  peakMb: number;
  keptMb: number;
  companies: number;
  numbers: number;
}

const path = process.argv[2];
if (!path) throw new Error('usage: node --expose-gc register-build-child.ts <database file>');
const db = openEmbeddedDatabase(path);
const store = createEmbeddedRegisterStore(db);
const registers = createRegisters(store, silentLogger(), { PHONE_DIRECTORY_TIMEOUT_MS: 5000 });
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
global.gc?.();
const before = process.memoryUsage();
let peak = before.rss;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 20);
const started = performance.now();
await registers.refresh();
const ms = performance.now() - started;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage.rss());
global.gc?.();
const after = process.memoryUsage();
const figures: RegisterBuildFigures = {
  ms: Math.round(ms),
  rssBeforeMb: mb(before.rss),
  peakMb: mb(peak),
  keptMb: mb(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers),
  companies: registers.companies.current()?.index.size ?? 0,
  numbers: registers.phones.current()?.index.size ?? 0,
};
db.close();
process.stdout.write(`${JSON.stringify(figures)}\n`);
