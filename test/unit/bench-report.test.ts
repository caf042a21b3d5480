import { describe, expect, it } from 'vitest';
import { markdown, meetsGoal, mergeSections, type Report, type SectionResult } from '../bench/run.ts';

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
    expect(md).toContain('| rate | 250,000 | rows/s | ≥ 10 | pass |');
    expect(md).toContain('| rate | 3 | rows/s | ≥ 10 | FAIL |');
    expect(md).toContain('Goals: 1 met, 2 missed.');
    expect(md).toMatch(/crashed[\s\S]*boom/);
  });
});
