/**
 * The fault table (docs/faults.md): one row per scenario of the fault suite, written into the
 * generated section of docs/faults.md when the suite ends, with the machine's load and the job
 * size, so a reader sees what was tried, on what, and what held.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

export interface FaultRow {
  fault: string;
  /** When it was injected (e.g. "mid-job, 31 % of rows stored"). */
  injected: string;
  rows: number;
  /** Final job state and error, or what the client was answered. */
  outcome: string;
  /** Distinct stored result rows (null: no job). */
  results: number | null;
  /** Callback requests received / distinct Service-Delivery ids / of them answered 2xx. */
  callbacks: { requests: number; events: number; delivered: number };
  /** Seconds from the fault to the job's final state. */
  recoverSeconds: number | null;
  held: boolean;
  /** 1-minute load average when the fault was injected. */
  load: number;
}

const DOC = join(import.meta.dirname, '../../docs/faults.md');
const BEGIN = '<!-- fault-table:begin (written by npm run faults) -->';
const END = '<!-- fault-table:end -->';

export function loadNow(): number {
  return Math.round(loadavg()[0] * 10) / 10;
}

export function renderTable(rows: FaultRow[], ranAt: Date): string {
  const lines = [
    `Run ${ranAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} cores; FAULTS_ROWS = ${rows[0]?.rows.toLocaleString('en') ?? '?'}.`,
    '',
    '| fault | injected | job state (error) | results = N | callback requests / events / 2xx | recovered in | load | held |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const results = r.results === null ? 'no job' : `${r.results.toLocaleString('en')} / ${r.rows.toLocaleString('en')}`;
    const recover = r.recoverSeconds === null ? '–' : `${r.recoverSeconds.toFixed(1)} s`;
    lines.push(`| ${r.fault} | ${r.injected} | ${r.outcome} | ${results} | ${r.callbacks.requests} / ${r.callbacks.events} / ${r.callbacks.delivered} | ${recover} | ${r.load} | ${r.held ? 'yes' : '**no**'} |`);
  }
  return lines.join('\n');
}

/** Replaces the generated section of docs/faults.md with this run's table. */
export function writeTable(rows: FaultRow[], ranAt = new Date()): void {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/faults.md lacks the ${BEGIN} … ${END} section`);
  writeFileSync(DOC, `${doc.slice(0, start + BEGIN.length)}\n${renderTable(rows, ranAt)}\n${doc.slice(end)}`);
}
