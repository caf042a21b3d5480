/**
 * The project's own lint: the standards of the developers' brief that the type checker cannot see.
 * (typescript-eslint does not support TypeScript 7, and Biome's platform binaries are not all on
 * the registry this project installs from, so `npm ci` could not install them everywhere.)
 *
 * Rules, each with the places it does not apply:
 * - no `console` in services/ (use the injected logger); the CLI entry points print to a person;
 * - no `process.env` in services/ outside config.ts and the entry points (configuration is read once);
 * - no focused or skipped tests (`.only`, `.skip`, `.todo`, `.skipIf`) in test/;
 * - no `enum`, `namespace` or parameter properties: Node's type stripping runs our .ts files as they are;
 * - import boundaries (style.md §2, §5): services/domain imports only services/domain (plus the
 *   pure packages of DOMAIN_PACKAGES), and code outside services/platform reaches the adapters
 *   (embedded, ClickHouse, Kafka) only through the platform's ports, except ADAPTER_IMPORTS_ALLOWED.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

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

/** Packages domain code may import: pure computation, no I/O. */
const DOMAIN_PACKAGES = ['libphonenumber-js/max'];

/** The adapters' files: only services/platform (open-platform.ts wires them) imports them. */
const ADAPTER_PATHS = [/^services\/platform\/store\/(embedded|clickhouse)\//, /^services\/platform\/log\/(kafka|embedded[\w-]*)\.ts$/];

/**
 * Existing imports of adapters from outside the platform, allowed by name until they move behind
 * a port: the API builds its idempotency store and key ring on the embedded database itself.
 */
const ADAPTER_IMPORTS_ALLOWED: Record<string, string[]> = {
  'services/api/app.ts': [
    'services/platform/store/embedded/keyring.ts',
    'services/platform/store/embedded/database.ts',
    'services/platform/store/embedded/idempotency.ts',
  ],
};

const IMPORT_PATTERNS = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];

/** The import boundary a specifier of `file` crosses, if any. */
function boundaryCrossed(file: string, specifier: string): string | null {
  const target = specifier.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), specifier)) : null;
  if (file.startsWith('services/domain/')) {
    if (target === null ? !DOMAIN_PACKAGES.includes(specifier) : !target.startsWith('services/domain/')) return 'domain-imports-only-domain';
  }
  if (inServices(file) && !file.startsWith('services/platform/') && target !== null && ADAPTER_PATHS.some((p) => p.test(target))) {
    if (!(ADAPTER_IMPORTS_ALLOWED[file] ?? []).includes(target)) return 'adapters-only-through-platform-ports';
  }
  return null;
}

/** Lints one file's text; `file` is its path relative to the repository root, with `/`. */
export function lintText(file: string, text: string): Finding[] {
  const rules = RULES.filter((rule) => rule.appliesTo(file));
  const checksImports = inServices(file);
  if (rules.length === 0 && !checksImports) return [];
  const findings: Finding[] = [];
  text.split('\n').forEach((line, index) => {
    const code = line.replace(/\/\/.*$/, '');
    for (const rule of rules) if (rule.pattern.test(code)) findings.push({ file, line: index + 1, rule: rule.name });
    if (!checksImports) return;
    for (const pattern of IMPORT_PATTERNS) {
      for (const match of code.matchAll(pattern)) {
        const crossed = boundaryCrossed(file, match[1]);
        if (crossed) findings.push({ file, line: index + 1, rule: crossed });
      }
    }
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
