/**
 * The embedded list store at national-list size: appends 2,000,000 synthetic entries to a file
 * database in import-sized batches, reads them back in chunks, and builds the active index from
 * the store as a restarted process would. Run alone: `npm exec -- node test/bench/list-store.bench.ts`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListEntry } from '../../services/domain/types.ts';
import { createActiveListIndex } from '../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { embeddedDatabasePath, openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { generateListEntries } from '../../services/synthetic/generate.ts';
import type { Bench, BenchSection } from './types.ts';

const ENTRIES = 2_000_000;
const BATCH = 10_000;

const bench: Bench = async (): Promise<BenchSection> => {
  const dir = mkdtempSync(join(tmpdir(), 'list-store-bench-'));
  try {
    const path = embeddedDatabasePath(dir);
    const db = openEmbeddedDatabase(path);
    const store = createEmbeddedListStore(db);
    await store.createListVersion({ id: 'bench', source: 'cpr', org_id: null, published_on: '2026-01-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0 });

    // Generation is timed apart so the append figure is the store's alone.
    let generateMs = 0;
    let appendMs = 0;
    let batch: ListEntry[] = [];
    let t = performance.now();
    for (const entry of generateListEntries(ENTRIES, 1)) {
      batch.push(entry);
      if (batch.length === BATCH) {
        generateMs += performance.now() - t;
        t = performance.now();
        await store.appendListEntries('bench', batch);
        appendMs += performance.now() - t;
        batch = [];
        t = performance.now();
      }
    }
    if (batch.length > 0) await store.appendListEntries('bench', batch);
    const sealed = await store.sealListVersion('bench');
    await store.activateListVersion('bench', new Date().toISOString());
    db.close();
    const fileMb = (statSync(path).size + walSize(path)) / 1e6;

    const reopened = createEmbeddedListStore(openEmbeddedDatabase(path));
    t = performance.now();
    let read = 0;
    for await (const chunk of reopened.readListEntries('bench', 10_000)) read += chunk.length;
    const readMs = performance.now() - t;
    if (read !== ENTRIES || sealed.entry_count !== ENTRIES) throw new Error(`read ${read}, sealed ${sealed.entry_count}`);

    const active = createActiveListIndex({ listStore: reopened, logger: silentLogger() });
    t = performance.now();
    await active.refresh();
    const indexMs = performance.now() - t;
    if (active.current()?.index.size !== ENTRIES) throw new Error('index size differs');

    return {
      title: 'Embedded list store (node:sqlite) with a 2,000,000-entry version',
      metrics: [
        { name: 'append (store only)', value: Math.round(ENTRIES / (appendMs / 1000)), unit: 'entries/s', note: `${round(appendMs / 1000)} s; generating the entries took ${round(generateMs / 1000)} s more` },
        { name: 'read back in 10,000-entry chunks', value: Math.round(ENTRIES / (readMs / 1000)), unit: 'entries/s', note: `${round(readMs / 1000)} s` },
        { name: 'active index built from the store', value: round(indexMs / 1000), unit: 's', note: 'read + index build, as at process start' },
        { name: 'database file', value: round(fileMb), unit: 'MB' },
        { name: 'peak RSS of the bench process', value: round(process.resourceUsage().maxRSS / 1024), unit: 'MB' },
      ],
      notes: [`synchronous=FULL, WAL; entries stored as 1000-entry JSON blocks; batches of ${BATCH.toLocaleString('en')}`],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

function walSize(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
