import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { updateDocFrom, writeTable, type FaultRow } from '../faults/fault-table.ts';

const row: FaultRow = {
  fault: 'kill -9 of the projection', injected: 'mid-job', rows: 1000, outcome: 'done', results: 1000,
  callbacks: { requests: 1, events: 1, delivered: 1 }, recoverSeconds: 2.5, held: true, load: 1.5,
};
const DOC = '# Faults\n\n<!-- fault-table:begin (written by FAULTS_UPDATE_DOC=1 npm run faults) -->\nold table\n<!-- fault-table:end -->\n\nafter\n';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function paths() {
  const dir = mkdtempSync(join(tmpdir(), 'fault-table-'));
  dirs.push(dir);
  const doc = join(dir, 'faults.md');
  writeFileSync(doc, DOC);
  return { doc, report: join(dir, 'out', 'fault-table.md') };
}

describe('fault table (test/faults/fault-table.ts)', () => {
  it('a run writes its table to the report file and leaves the tracked doc as it was', () => {
    const { doc, report } = paths();
    writeTable([row], { doc, report, updateDoc: false }, new Date('2026-11-23T05:00:00Z'));
    expect(readFileSync(doc, 'utf8')).toBe(DOC);
    expect(readFileSync(report, 'utf8')).toContain('| kill -9 of the projection | mid-job | done | 1,000 / 1,000 | 1 / 1 / 1 | 2.5 s | 1.5 | yes |');
  });

  it('FAULTS_UPDATE_DOC=1 replaces only the generated section of the doc', () => {
    const { doc, report } = paths();
    writeTable([row], { doc, report, updateDoc: updateDocFrom('1') }, new Date('2026-11-23T05:00:00Z'));
    const text = readFileSync(doc, 'utf8');
    expect(text).not.toContain('old table');
    expect(text).toContain('Run 2026-11-23 05:00 UTC');
    expect(text.startsWith('# Faults\n\n<!-- fault-table:begin')).toBe(true);
    expect(text.endsWith('<!-- fault-table:end -->\n\nafter\n')).toBe(true);
  });

  it('FAULTS_UPDATE_DOC takes 0 or 1 only', () => {
    expect(updateDocFrom(undefined)).toBe(false);
    expect(updateDocFrom('0')).toBe(false);
    expect(() => updateDocFrom('yes')).toThrow('FAULTS_UPDATE_DOC must be 0 or 1');
  });
});
