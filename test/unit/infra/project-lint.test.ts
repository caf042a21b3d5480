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

  it('keeps domain code to domain imports and the pure packages allowed', () => {
    expect(rulesOf('services/domain/check.ts', "import { normalize } from './normalize.ts';\nimport { x } from 'libphonenumber-js/max';\n")).toEqual([]);
    expect(rulesOf('services/domain/check.ts', [
      "import { readFileSync } from 'node:fs';",
      "import type { Logger } from '../platform/logger.ts';",
      '} from "../pipeline/events.ts";',
      "const m = await import('pino');",
    ].join('\n'))).toEqual(['1:domain-imports-only-domain', '2:domain-imports-only-domain', '3:domain-imports-only-domain', '4:domain-imports-only-domain']);
  });

  it('lets only the platform import the adapters, apart from the allowed existing imports', () => {
    const imports = [
      "import { createKafkaEventLog } from '../platform/log/kafka.ts';",
      "import { createClickHouseJobStore } from '../platform/store/clickhouse/jobs.ts';",
      "import { openEmbeddedDatabase } from '../platform/store/embedded/database.ts';",
      "import type { JobStore } from '../platform/store/jobs-port.ts';",
    ].join('\n');
    expect(rulesOf('services/projection/projection.ts', imports)).toEqual([
      '1:adapters-only-through-platform-ports', '2:adapters-only-through-platform-ports', '3:adapters-only-through-platform-ports',
    ]);
    expect(rulesOf('services/platform/open-platform.ts', imports.replaceAll('../platform/', './'))).toEqual([]);
    expect(rulesOf('services/api/app.ts', imports)).toEqual(['1:adapters-only-through-platform-ports', '2:adapters-only-through-platform-ports']);
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
