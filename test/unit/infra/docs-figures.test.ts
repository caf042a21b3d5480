import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md "Performance" names the pipeline bench's metrics and sends the reader to
 * test/bench/REPORT.md for their figures, which `npm run bench` writes: the doc copies no figure,
 * so it cannot keep an older run's (it once said 18.6 s and 128 ms while the report said 166 s
 * and 781 ms). What can still drift is a metric's name: each one the doc's table names must be in
 * the report's pipeline section, for both deployments.
 */
const root = new URL('../../../', import.meta.url).pathname;
const DEPLOYMENTS = ['embedded', 'Kafka + ClickHouse'] as const;
const SECTION = '## Pipeline: 1,000,000-row check job end to end';

const cellsOf = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());

/** `metric → "value unit"` of the table rows of the report's pipeline section. */
export function reportMetrics(report: string): Map<string, string> {
  const start = report.indexOf(SECTION);
  if (start < 0) return new Map();
  const end = report.indexOf('\n## ', start + SECTION.length);
  return new Map(report.slice(start, end < 0 ? undefined : end).split('\n')
    .filter((line) => line.startsWith('| '))
    .map((line) => cellsOf(line))
    .map(([metric, value, unit]) => [metric, `${value} ${unit}`]));
}

/** The metrics of the doc's table that points to REPORT.md. */
export function namedMetrics(doc: string): string[] {
  const lines = doc.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| metric (REPORT.md'));
  if (header < 0) return [];
  const rows: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(cellsOf(line)[0]);
  }
  return rows;
}

/** Each named metric the report's pipeline section lacks, per deployment. */
export function metricsNotInReport(doc: string, report: string): string[] {
  const metrics = reportMetrics(report);
  return namedMetrics(doc).flatMap((metric) => DEPLOYMENTS
    .map((deployment) => `${deployment}: ${metric}`)
    .filter((name) => !metrics.has(name)));
}

/** Whether the figure stands in the text as a number of its own ("6 s" is not in "18.6 s"). */
function standsIn(text: string, figure: string): boolean {
  const escaped = figure.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\d.,])${escaped}(?![\\d])`).test(text);
}

describe('docs/architecture.md "Performance"', () => {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const report = readFileSync(join(root, 'test/bench/REPORT.md'), 'utf8');

  it('names metrics of test/bench/REPORT.md\'s pipeline section, for both deployments, and copies no figure', () => {
    expect(namedMetrics(doc).length).toBeGreaterThanOrEqual(4);
    expect(metricsNotInReport(doc, report)).toEqual([]);
    const section = doc.slice(doc.indexOf('## Performance'), doc.indexOf('What moved the numbers'));
    // The report's current figures of these metrics are nowhere on the page.
    const figures = reportMetrics(report);
    const copied = namedMetrics(doc).flatMap((metric) => DEPLOYMENTS.map((d) => figures.get(`${d}: ${metric}`)!)).filter((figure) => standsIn(section, figure));
    expect(copied).toEqual([]);
  });

  it('finds a copied figure only as a number of its own', () => {
    expect(standsIn('the job took 6 s here', '6 s')).toBe(true);
    expect(standsIn('18.6 s embedded, 16 s', '6 s')).toBe(false);
  });

  it('can tell a metric the report does not have', () => {
    const renamed = doc.replace('| intake (POST → 202, rows on the log) |', '| intake, renamed |');
    expect(renamed).not.toBe(doc);
    expect(metricsNotInReport(renamed, report)).toEqual([
      'embedded: intake, renamed',
      'Kafka + ClickHouse: intake, renamed',
    ]);
    expect(metricsNotInReport(doc, report.replace('| embedded: intake (POST → 202', '| embedded: intake (POST -> 202'))).toEqual([
      'embedded: intake (POST → 202, rows on the log)',
    ]);
  });
});
