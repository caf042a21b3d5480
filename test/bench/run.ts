/**
 * `npm run bench [-- filter…]`: runs every test/bench/*.bench.ts (or those whose file name contains
 * one of the filters) one after the other, each in a fresh child process (child.ts) on the same
 * Node as this one (npm puts the project's Node 24 first on PATH), then prints one table and writes
 * test/bench/REPORT.md and test/bench/report.json.
 *
 * A filtered run updates the sections it ran and keeps the others from the previous report.json,
 * each with the date it was measured. Exit code 1 when a bench crashed or a goal was missed, so CI
 * can use it; the report is written either way.
 */
// First: the network guard (loopback only) for this process and, through NODE_OPTIONS, every
// bench child it forks.
import '../support/loopback-only.ts';
import { fork } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildMessage } from './child.ts';
import { CALIBRATION_RECORDS, calibrationRatio } from './reference.ts';
import type { BenchMetric, BenchSection } from './types.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPORT_MD = path.join(BENCH_DIR, 'REPORT.md');
const REPORT_JSON = path.join(BENCH_DIR, 'report.json');
/**
 * Per bench file; a bench that hangs is killed and reported as failed. BENCH_TIMEOUT_MINUTES
 * raises it for the full-size runs that take longer on a loaded machine (the 3,000,000-unit
 * address register was killed at 30 minutes with a load average of 20).
 */
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MINUTES ?? 30) * 60 * 1000;

export interface MetricResult extends BenchMetric {
  /** null when the metric has no goal. */
  pass: boolean | null;
}

export interface SectionResult {
  file: string;
  ran_at: string;
  duration_s: number;
  /** 1-minute load average when the bench started and ended: other work on the machine skews timings. */
  load_average?: [number, number];
  /**
   * The calibration (reference.ts, a fixed CPU workload) in ms, measured in the bench's process
   * before and after it; their mean is the reference of the ratios the runner adds.
   */
  calibration_ms?: [number, number];
  status: 'ok' | 'error';
  error?: string;
  title: string;
  metrics: MetricResult[];
  notes: string[];
}

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  memory_gb: number;
  platform: string;
  node: string;
  load_average_1m: number;
  git_commit: string | null;
}

export interface Report {
  generated_at: string;
  machine: MachineInfo;
  filter: string[];
  sections: SectionResult[];
}

/**
 * The section's metrics with their goals judged, and a ratio to the calibration added to every
 * time and rate figure that has no same-run ratio of its own.
 */
export function judgeMetrics(metrics: BenchMetric[], calibrationMs: [number, number] | undefined): MetricResult[] {
  const reference = calibrationMs ? (calibrationMs[0] + calibrationMs[1]) / 2 : 0;
  return metrics.map((m) => {
    const ratio = m.ratio ?? calibrationRatio(m, reference) ?? undefined;
    return { ...m, ...(ratio ? { ratio } : {}), pass: meetsGoal(m) };
  });
}

export function meetsGoal(metric: BenchMetric): boolean | null {
  if (!metric.goal) return null;
  return metric.goal.op === '<=' ? metric.value <= metric.goal.value : metric.value >= metric.goal.value;
}

function machineInfo(): MachineInfo {
  let git_commit: string | null = null;
  try {
    git_commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: BENCH_DIR, encoding: 'utf8' }).trim();
    // Numbers from a working tree with uncommitted code changes are not the commit's numbers.
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'services', 'test'], { cwd: BENCH_DIR, encoding: 'utf8' });
    if (dirty.trim() !== '') git_commit += ' + uncommitted changes';
  } catch {
    // not a git checkout: leave it out
  }
  return {
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    load_average_1m: loadAverage(),
    git_commit,
  };
}

function loadAverage(): number {
  return Math.round(os.loadavg()[0] * 100) / 100;
}

function benchFiles(filters: string[]): string[] {
  return readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((filter) => f.includes(filter)))
    .sort();
}

function runOne(file: string): Promise<SectionResult> {
  const started = Date.now();
  const ran_at = new Date(started).toISOString();
  const loadAtStart = loadAverage();
  const done = (message: ChildMessage): SectionResult => {
    const duration_s = Math.round((Date.now() - started) / 100) / 10;
    const load_average: [number, number] = [loadAtStart, loadAverage()];
    if (!message.ok) {
      return { file, ran_at, duration_s, load_average, status: 'error', error: message.error, title: file, metrics: [], notes: [] };
    }
    const section: BenchSection = message.section;
    return {
      file,
      ran_at,
      duration_s,
      load_average,
      status: 'ok',
      calibration_ms: message.calibration_ms,
      title: section.title,
      metrics: judgeMetrics(section.metrics, message.calibration_ms),
      notes: section.notes ?? [],
    };
  };
  return new Promise((resolve) => {
    let message: ChildMessage | null = null;
    const child = fork(path.join(BENCH_DIR, 'child.ts'), [path.join(BENCH_DIR, file)], {
      execArgv: ['--expose-gc', '--no-warnings'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      timeout: TIMEOUT_MS,
    });
    child.on('message', (m) => {
      message = m as ChildMessage;
    });
    child.on('exit', (code, signal) => {
      resolve(done(message ?? { ok: false, error: `child exited (code ${code}, signal ${signal}) without a result` }));
    });
  });
}

function formatValue(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en') : n.toLocaleString('en', { maximumFractionDigits: 2 });
}

function goalText(m: BenchMetric): string {
  return m.goal ? `${m.goal.op === '<=' ? '≤' : '≥'} ${formatValue(m.goal.value)}` : '';
}

function ratioText(m: BenchMetric): string {
  return m.ratio ? `${formatValue(m.ratio.value)}× ${m.ratio.of}` : '';
}

function resultText(m: MetricResult): string {
  return m.pass === null ? '' : m.pass ? 'pass' : 'FAIL';
}

function rows(report: Report): string[][] {
  const out: string[][] = [];
  for (const s of report.sections) {
    if (s.status === 'error') {
      out.push([s.file, 'bench crashed', '', '', '', '', 'FAIL']);
      continue;
    }
    for (const m of s.metrics) out.push([s.file, m.name, formatValue(m.value), m.unit, ratioText(m), goalText(m), resultText(m)]);
  }
  return out;
}

function consoleTable(report: Report): string {
  const header = ['bench', 'metric', 'value', 'unit', 'same-run ratio', 'goal', 'result'];
  const body = rows(report);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function markdown(report: Report): string {
  const m = report.machine;
  const { passed, failed } = tally(report);
  const lines = [
    '# Benchmark report',
    '',
    `Written by \`npm run bench\` on ${report.generated_at}${report.filter.length ? ` (filter: ${report.filter.join(' ')})` : ''}. ` +
      'Each bench ran in a fresh Node process; a section keeps the date it was measured.',
    '',
    `Machine: ${m.cpu_model}, ${m.cores} cores, ${m.memory_gb} GB, ${m.platform}; Node ${m.node}; ` +
      `load average (1 min) at start ${m.load_average_1m}${m.git_commit ? `; commit ${m.git_commit}` : ''}.`,
    '',
    `Goals: ${passed} met, ${failed} missed.`,
    '',
    'Absolute figures do not carry from one machine to another, so every figure is also given as a ' +
      'multiple of something measured in the same process run (test/bench/README.md): a floor or ' +
      'baseline the bench measures itself, or else the calibration, a fixed CPU workload ' +
      `(test/bench/reference.ts, ${CALIBRATION_RECORDS.toLocaleString('en')} records) measured before and after each bench. ` +
      'A time "× calibration" is that many calibration times; a rate "× calibration" is that many ' +
      "times the calibration's records per second.",
    '',
  ];
  for (const s of report.sections) {
    const load = s.load_average ? `, load average ${s.load_average[0]} → ${s.load_average[1]} on ${m.cores} cores` : '';
    const calibration = s.calibration_ms
      ? `; calibration ${s.calibration_ms[0]} ms before, ${s.calibration_ms[1]} ms after`
      : '; measured before the runner had a calibration (no same-run ratios unless the bench gave them)';
    lines.push(`## ${escapeCell(s.title)}`, '', `\`${s.file}\`, measured ${s.ran_at}, ${s.duration_s} s${load}${calibration}.`, '');
    if (s.status === 'error') {
      lines.push('**The bench crashed:**', '', '```', s.error ?? '', '```', '');
      continue;
    }
    lines.push('| metric | value | unit | same-run ratio | goal | result | note |', '|---|---:|---|---:|---|---|---|');
    for (const metric of s.metrics) {
      lines.push(
        `| ${escapeCell(metric.name)} | ${formatValue(metric.value)} | ${escapeCell(metric.unit)} | ${escapeCell(ratioText(metric))} | ${goalText(metric)} | ` +
          `${resultText(metric)} | ${escapeCell(metric.note ?? '')} |`,
      );
    }
    lines.push('');
    for (const note of s.notes) lines.push(`- ${note}`);
    if (s.notes.length) lines.push('');
  }
  return lines.join('\n');
}

function tally(report: Report): { passed: number; failed: number } {
  let passed = 0;
  let failed = 0;
  for (const s of report.sections) {
    if (s.status === 'error') failed++;
    for (const m of s.metrics) {
      if (m.pass === true) passed++;
      if (m.pass === false) failed++;
    }
  }
  return { passed, failed };
}

/**
 * The report's sections: the fresh ones, plus those of the previous report whose bench file still
 * exists and did not run this time. Sorted by file name.
 */
export function mergeSections(previous: SectionResult[], fresh: SectionResult[], existingFiles: string[]): SectionResult[] {
  const ran = new Set(fresh.map((s) => s.file));
  const existing = new Set(existingFiles);
  const kept = previous.filter((s) => existing.has(s.file) && !ran.has(s.file));
  return [...kept, ...fresh].sort((a, b) => a.file.localeCompare(b.file));
}

function previousSections(): SectionResult[] {
  if (!existsSync(REPORT_JSON)) return [];
  try {
    return (JSON.parse(readFileSync(REPORT_JSON, 'utf8')) as Report).sections ?? [];
  } catch {
    return [];
  }
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2).filter((a) => a !== '--');
  const files = benchFiles(filters);
  if (files.length === 0) {
    process.stderr.write(`no test/bench/*.bench.ts matches ${filters.join(' ')}\n`);
    return 1;
  }
  const machine = machineInfo();
  const fresh: SectionResult[] = [];
  for (const file of files) {
    process.stdout.write(`\n▶ ${file}\n`);
    const result = await runOne(file);
    process.stdout.write(`  ${result.status === 'ok' ? 'done' : 'CRASHED'} in ${result.duration_s} s\n`);
    fresh.push(result);
  }
  const report: Report = {
    generated_at: new Date().toISOString(),
    machine,
    filter: filters,
    sections: mergeSections(previousSections(), fresh, benchFiles([])),
  };
  writeFileSync(REPORT_JSON, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(REPORT_MD, markdown(report));
  const { passed, failed } = tally(report);
  process.stdout.write(`\n${consoleTable(report)}\n\nGoals: ${passed} met, ${failed} missed. Report: ${path.relative(process.cwd(), REPORT_MD)}\n`);
  for (const s of fresh) if (s.status === 'error') process.stderr.write(`\n${s.file} crashed:\n${s.error}\n`);
  return failed > 0 ? 1 : 0;
}

if (import.meta.main) process.exitCode = await main();
