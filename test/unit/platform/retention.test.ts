/**
 * The retention table (services/platform/retention.ts) and docs/privacy-and-proof.md "Every store"
 * name the same stores, and the one schedule runs every registered sweep on its timer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createRetentionSchedule, RETENTION_STORES } from '../../../services/platform/retention.ts';
import { until } from '../../support/until.ts';

const docsPath = join(import.meta.dirname, '../../../docs/privacy-and-proof.md');

/** The first cell of every row of the "Every store" table, backticks removed. */
function documentedStores(): string[] {
  const text = readFileSync(docsPath, 'utf8');
  const start = text.indexOf('## Every store');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| store |'))
    .map((line) => (line.split('|')[1] ?? '').trim().replaceAll('`', ''));
}

/** A documented row belongs to a table entry when its first cell starts with the entry's name as whole words. */
function belongsTo(cell: string, store: string): boolean {
  return cell.startsWith(store) && (cell.length === store.length || cell[store.length] === ' ');
}

describe('the retention table and the documented stores', () => {
  it('the docs section has a table to compare with', () => {
    expect(documentedStores().length).toBeGreaterThanOrEqual(10);
  });

  it('every documented store has exactly one entry in the table, and every entry one documented row', () => {
    const cells = documentedStores();
    for (const cell of cells) {
      expect(RETENTION_STORES.filter((entry) => belongsTo(cell, entry.store)).map((entry) => entry.store), cell).toHaveLength(1);
    }
    for (const entry of RETENTION_STORES) {
      expect(cells.filter((cell) => belongsTo(cell, entry.store)), entry.store).toHaveLength(1);
    }
  });

  it('every store that holds checked people names the sweep that ends them', () => {
    const unswept = RETENTION_STORES.filter((entry) => entry.holdsPeople && entry.sweep === null).map((entry) => entry.store);
    expect(unswept).toEqual([]);
  });
});

describe('the retention schedule', () => {
  it('runs every registered sweep on its one timer, and a failing sweep does not stop the next', async () => {
    const runs: string[] = [];
    const schedule = createRetentionSchedule({ intervalMs: 10, logger: silentLogger() });
    schedule.register('draft-files', async () => { runs.push('draft-files'); throw new Error('disk gone'); });
    schedule.register('idempotency-expired', async () => { runs.push('idempotency-expired'); });
    schedule.start();
    try {
      await until('two passes of both sweeps', () => runs.filter((name) => name === 'idempotency-expired').length >= 2, 5_000);
    } finally {
      await schedule.stop();
    }
    expect(runs.slice(0, 2)).toEqual(['draft-files', 'idempotency-expired']);
  });

  it('runs nothing on a timer when the interval is 0, only through runOnce', async () => {
    const runs: string[] = [];
    const schedule = createRetentionSchedule({ intervalMs: 0, logger: silentLogger() });
    schedule.register('spool-stale', async () => { runs.push('spool-stale'); });
    schedule.start();
    expect(runs).toEqual([]);
    await schedule.runOnce();
    expect(runs).toEqual(['spool-stale']);
    await schedule.stop();
  });
});
