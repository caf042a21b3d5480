/**
 * The project's own lint: the standards of the developers' brief that the type checker cannot see.
 * (typescript-eslint does not support TypeScript 7, and Biome's platform binaries are not all on
 * the registry this project installs from, so `npm ci` could not install them everywhere.)
 *
 * Rules, each with the places it does not apply:
 * - no `console` in services/ (use the injected logger); the CLI entry points print to a person;
 * - no `process.env` in services/ outside config.ts and the entry points (configuration is read once);
 * - no focused or skipped tests (`.only`, `.skip`, `.todo`, `.skipIf`) in test/;
 * - no `enum`, `namespace` or parameter properties: Node's type stripping runs our .ts files as they are.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Finding {
  file: string;
  line: number;
  rule: string;
}

interface Rule {
  name: string;
  pattern: RegExp;
  appliesTo: (file: string) => boolean;
}

const ENTRY_POINTS = ['services/admin/cli.ts', 'services/entry-point.ts', 'services/main.ts', 'services/run-service.ts'];
const inServices = (file: string) => file.startsWith('services/');
const inTests = (file: string) => file.startsWith('test/');

const RULES: Rule[] = [
  {
    name: 'no-console-in-services',
    pattern: /\bconsole\.(log|error|warn|info|debug|trace)\(/,
    appliesTo: (file) => inServices(file) && !ENTRY_POINTS.includes(file),
  },
  {
    name: 'no-process-env-in-services',
    pattern: /\bprocess\.env\b/,
    appliesTo: (file) => inServices(file) && file !== 'services/platform/config.ts' && !ENTRY_POINTS.includes(file),
  },
  {
    name: 'no-focused-or-skipped-tests',
    pattern: /\b(it|test|describe)\.(only|skip|todo|skipIf)\b/,
    appliesTo: inTests,
  },
  {
    name: 'no-enum-or-namespace',
    pattern: /^\s*(export\s+)?(const\s+)?(enum|namespace)\s+[A-Za-z_]/,
    appliesTo: () => true,
  },
  {
    name: 'no-parameter-properties',
    pattern: /constructor\((.*[,(])?\s*((private|public|protected|readonly|override)\s+)+[A-Za-z_$][\w$]*\s*[?:]/,
    appliesTo: () => true,
  },
];

/** Lints one file's text; `file` is its path relative to the repository root, with `/`. */
export function lintText(file: string, text: string): Finding[] {
  const rules = RULES.filter((rule) => rule.appliesTo(file));
  if (rules.length === 0) return [];
  const findings: Finding[] = [];
  text.split('\n').forEach((line, index) => {
    const code = line.replace(/\/\/.*$/, '');
    for (const rule of rules) if (rule.pattern.test(code)) findings.push({ file, line: index + 1, rule: rule.name });
  });
  return findings;
}

function* typeScriptFiles(root: string, dir: string): Generator<string> {
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) yield* typeScriptFiles(root, path);
    else if (name.endsWith('.ts')) yield path.split('\\').join('/');
  }
}

export function lintTree(root: string): Finding[] {
  const findings: Finding[] = [];
  for (const top of ['services', 'test', 'infra']) {
    for (const file of typeScriptFiles(root, top)) findings.push(...lintText(file, readFileSync(join(root, file), 'utf8')));
  }
  return findings;
}

if (import.meta.main) {
  const root = join(import.meta.dirname, '..', '..');
  const findings = lintTree(root);
  for (const f of findings) process.stdout.write(`${relative(root, join(root, f.file))}:${f.line}  ${f.rule}\n`);
  process.stdout.write(findings.length === 0 ? 'lint: no findings\n' : `lint: ${findings.length} finding(s)\n`);
  process.exitCode = findings.length === 0 ? 0 : 1;
}
