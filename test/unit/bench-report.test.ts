import { describe, expect, it } from 'vitest';
import { judgeMetrics, markdown, meetsGoal, mergeSections, type Report, type SectionResult } from '../bench/run.ts';
import { calibrate, calibrationPass, CALIBRATION_RECORDS, calibrationRatio, ratioMetric, relativeTo } from '../bench/reference.ts';

const section = (file: string, ran_at: string, value = 1): SectionResult => ({
  file,
  ran_at,
  duration_s: 1,
  status: 'ok',
  title: `Title of ${file}`,
  metrics: [{ name: 'rate', value, unit: 'rows/s', goal: { op: '>=', value: 10 }, pass: value >= 10 }],
  notes: ['a note'],
});

describe('bench report (test/bench/run.ts)', () => {
  it('judges goals both ways and leaves metrics without a goal unjudged', () => {
    expect(meetsGoal({ name: 'a', value: 5, unit: 's', goal: { op: '<=', value: 5 } })).toBe(true);
    expect(meetsGoal({ name: 'a', value: 6, unit: 's', goal: { op: '<=', value: 5 } })).toBe(false);
    expect(meetsGoal({ name: 'a', value: 4, unit: 'x', goal: { op: '>=', value: 5 } })).toBe(false);
    expect(meetsGoal({ name: 'a', value: 4, unit: 'x' })).toBeNull();
  });

  it('a filtered run replaces its sections and keeps the others, dropping benches that are gone', () => {
    const previous = [section('a.bench.ts', 'old'), section('b.bench.ts', 'old'), section('gone.bench.ts', 'old')];
    const merged = mergeSections(previous, [section('b.bench.ts', 'new')], ['a.bench.ts', 'b.bench.ts']);
    expect(merged.map((s) => [s.file, s.ran_at])).toEqual([['a.bench.ts', 'old'], ['b.bench.ts', 'new']]);
  });

  it('writes machine info, each metric with goal and result, and crashed benches', () => {
    const report: Report = {
      generated_at: '2026-01-01T00:00:00.000Z',
      machine: { cpu_model: 'CPU X', cores: 2, memory_gb: 8, platform: 'linux', node: 'v24.0.0', load_average_1m: 0.5, git_commit: 'abc123' },
      filter: [],
      sections: [
        section('a.bench.ts', 'old', 250_000),
        section('b.bench.ts', 'old', 3),
        { ...section('c.bench.ts', 'old'), status: 'error', error: 'boom', metrics: [] },
      ],
    };
    const md = markdown(report);
    expect(md).toContain('CPU X, 2 cores, 8 GB');
    expect(md).toContain('Node v24.0.0');
    expect(md).toContain('| rate | 250,000 | rows/s |  | ≥ 10 | pass |');
    expect(md).toContain('| rate | 3 | rows/s |  | ≥ 10 | FAIL |');
    expect(md).toContain('Goals: 1 met, 2 missed.');
    expect(md).toMatch(/crashed[\s\S]*boom/);
  });

  it('adds a ratio to the calibration to times and rates that have none, and keeps a bench\'s own ratio', () => {
    const calibrationMs: [number, number] = [180, 220]; // mean 200 ms
    const judged = judgeMetrics([
      { name: 'job', value: 3, unit: 's' },
      { name: 'page', value: 50, unit: 'ms', goal: { op: '<=', value: 40 } },
      { name: 'rate', value: 400_000, unit: 'rows/s' },
      { name: 'rss', value: 300, unit: 'MB' },
      { name: 'own', value: 12, unit: 's', ratio: { value: 2.5, of: 'the floor' } },
    ], calibrationMs);
    expect(judged.map((m) => m.ratio ?? null)).toEqual([
      { value: 15, of: 'calibration' }, // 3,000 ms / 200 ms
      { value: 0.25, of: 'calibration' },
      // the calibration's rate is CALIBRATION_RECORDS per 0.2 s
      { value: Math.round((400_000 / (CALIBRATION_RECORDS / 0.2)) * 1000) / 1000, of: 'calibration' },
      null,
      { value: 2.5, of: 'the floor' },
    ]);
    expect(judged.map((m) => m.pass)).toEqual([null, false, null, null, null]);
    // A section measured before the runner had a calibration gets no invented ratio.
    expect(judgeMetrics([{ name: 'job', value: 3, unit: 's' }], undefined)[0].ratio).toBeUndefined();
    expect(calibrationRatio({ name: 'x', value: 1, unit: 's' }, 0)).toBeNull();
  });

  it('divides a figure by a same-run reference of the same unit only, and states ratio goals', () => {
    const floor = { name: 'the floor', value: 8, unit: 's' };
    expect(relativeTo({ name: 'job', value: 26, unit: 's' }, floor).ratio).toEqual({ value: 3.25, of: 'the floor' });
    expect(() => relativeTo({ name: 'job', value: 26, unit: 'ms' }, floor)).toThrow(/cannot be divided/);
    const goal = ratioMetric('job / floor', 36, floor, { op: '<=', value: 4 });
    expect(goal).toMatchObject({ value: 4.5, unit: '× the floor', note: '36 s / 8 s' });
    expect(meetsGoal(goal)).toBe(false);
  });

  it('the calibration is the same work every pass, and takes time', () => {
    expect(calibrationPass()).toBe(calibrationPass());
    expect(calibrate(1)).toBeGreaterThan(0);
  });

  it('writes the ratio column and each section\'s calibration', () => {
    const measured: SectionResult = {
      ...section('p.bench.ts', 'new'),
      calibration_ms: [200, 210],
      metrics: judgeMetrics([
        { name: 'job', value: 26, unit: 's', ratio: { value: 3.25, of: 'the floor' } },
        { name: 'page', value: 41, unit: 'ms' },
      ], [200, 210]),
    };
    const report: Report = {
      generated_at: '2026-01-01T00:00:00.000Z',
      machine: { cpu_model: 'CPU X', cores: 2, memory_gb: 8, platform: 'linux', node: 'v24.0.0', load_average_1m: 0.5, git_commit: null },
      filter: [],
      sections: [measured, section('old.bench.ts', 'old')],
    };
    const md = markdown(report);
    expect(md).toContain('| metric | value | unit | same-run ratio | goal | result | note |');
    expect(md).toContain('| job | 26 | s | 3.25× the floor |');
    expect(md).toContain('| page | 41 | ms | 0.2× calibration |');
    expect(md).toContain('calibration 200 ms before, 210 ms after');
    expect(md).toContain('measured before the runner had a calibration');
  });
});
