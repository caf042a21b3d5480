/**
 * The fault table (docs/faults.md): one row per scenario of the fault suite, with the machine's
 * load and the job size, so a reader sees what was tried, on what, and what held. Every run writes
 * it to a report file that git ignores (test/faults/out/fault-table.md), so running the suite
 * leaves the tree clean; it replaces the generated section of docs/faults.md only when asked
 * (`FAULTS_UPDATE_DOC=1`), for a run whose figures should be published.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';

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
const REPORT = join(import.meta.dirname, 'out/fault-table.md');
const BEGIN = '<!-- fault-table:begin (written by FAULTS_UPDATE_DOC=1 npm run faults) -->';
const END = '<!-- fault-table:end -->';

export function loadNow(): number {
  return Math.round(loadavg()[0] * 10) / 10;
}

export function renderTable(rows: FaultRow[], ranAt: Date): string {
  const lines = [
    `Run ${ranAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} cores; FAULTS_ROWS = ${rows[0]?.rows.toLocaleString('en') ?? '?'}.`,
    '',
    '| fault | injected | job state (error) | results = N | callback requests / events / 2xx | fault → final state | load | held |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const results = r.results === null ? 'no job' : `${r.results.toLocaleString('en')} / ${r.rows.toLocaleString('en')}`;
    const recover = r.recoverSeconds === null ? '–' : `${r.recoverSeconds.toFixed(1)} s`;
    lines.push(`| ${r.fault} | ${r.injected} | ${r.outcome} | ${results} | ${r.callbacks.requests} / ${r.callbacks.events} / ${r.callbacks.delivered} | ${recover} | ${r.load} | ${r.held ? 'yes' : '**no**'} |`);
  }
  return lines.join('\n');
}

export interface TableTargets {
  /** The report file, always written. */
  report?: string;
  /** The doc whose generated section is replaced when `updateDoc`. */
  doc?: string;
  updateDoc: boolean;
}

/** Writes this run's table to the report file and, when asked, into the doc's generated section. */
export function writeTable(rows: FaultRow[], targets: TableTargets, ranAt = new Date()): void {
  const table = renderTable(rows, ranAt);
  const report = targets.report ?? REPORT;
  mkdirSync(dirname(report), { recursive: true });
  writeFileSync(report, `# Fault table (npm run faults)\n\n${table}\n`);
  if (!targets.updateDoc) return;
  const path = targets.doc ?? DOC;
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} lacks the ${BEGIN} … ${END} section`);
  writeFileSync(path, `${doc.slice(0, start + BEGIN.length)}\n${table}\n${doc.slice(end)}`);
}

/** FAULTS_UPDATE_DOC: unset or `0` leaves docs/faults.md alone, `1` rewrites its table; anything else is refused. */
export function updateDocFrom(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new Error(`FAULTS_UPDATE_DOC must be 0 or 1, not ${JSON.stringify(value)}`);
}
