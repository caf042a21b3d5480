import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintText, lintTree } from '../../../infra/lint/project-rules.ts';

const rulesOf = (file: string, text: string) => lintText(file, text).map((f) => `${f.line}:${f.rule}`);

describe('the project lint', () => {
  it('finds console and process.env in library code, but not in the CLI entry points', () => {
    const text = "const a = 1;\nconsole.log('x');\nconst port = process.env.PORT;\n";
    expect(rulesOf('services/domain/check.ts', text)).toEqual(['2:no-console-in-services', '3:no-process-env-in-services']);
    expect(rulesOf('services/main.ts', text)).toEqual([]);
    expect(rulesOf('services/platform/config.ts', 'const e = process.env;\n')).toEqual([]);
  });

  it('finds focused and skipped tests, only in test/', () => {
    // Built from parts so that this file does not trip the rule itself.
    const dot = (name: string, modifier: string) => `${name}.${modifier}`;
    const text = `${dot('it', 'only')}('a', () => {});\n${dot('describe', 'skip')}('b', () => {});\n${dot('it', 'skipIf')}(x)('c', () => {});\nit('d', () => {});\n`;
    expect(rulesOf('test/unit/x.test.ts', text)).toEqual([
      '1:no-focused-or-skipped-tests', '2:no-focused-or-skipped-tests', '3:no-focused-or-skipped-tests',
    ]);
    expect(rulesOf('services/lists/cpr-format.ts', "fit(r.address, FIELD.address) + '#';\n")).toEqual([]);
  });

  it('finds syntax that Node cannot strip: enums, namespaces, parameter properties', () => {
    expect(rulesOf('services/a.ts', 'export enum Level { A }\n')).toEqual(['1:no-enum-or-namespace']);
    expect(rulesOf('services/a.ts', 'namespace N {}\n')).toEqual(['1:no-enum-or-namespace']);
    const modifier = 'private';
    expect(rulesOf('services/a.ts', `  constructor(${modifier} readonly log: Logger) {}\n`)).toEqual(['1:no-parameter-properties']);
    expect(rulesOf('services/a.ts', '  constructor(count: number, lines: readonly number[]) {}\n')).toEqual([]);
  });

  it('ignores what stands in a line comment', () => {
    expect(rulesOf('services/a.ts', '// never console.log(name) here\n')).toEqual([]);
  });

  it('passes on this repository', () => {
    expect(lintTree(join(import.meta.dirname, '..', '..', '..'))).toEqual([]);
  });
});
