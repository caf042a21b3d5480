import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository must explain itself (docs/README.md): code and docs cite only documents that are
 * in it, and every citation of a doc resolves to its file and, where one is named, its heading.
 * The forms a citation may take: `docs/x.md`, `docs/x.md §N` (a heading `## §N …`),
 * `docs/x.md "Heading"` (a heading, or the bold lead-in of a paragraph or list item, holding
 * that text) and `docs/x.md#slug`.
 */
const root = new URL('../../../', import.meta.url).pathname;
// schemas/ is left out: a registered Avro schema's text is immutable (a changed doc string is a new
// schema version to the registry), so the older ones keep the words they were registered with.
const SCANNED = ['services', 'infra', 'test', 'docs', 'README.md', 'docker-compose.yml'];
const TEXT_FILE = /\.(ts|js|mjs|sh|md|yml|yaml|json|avsc|sql|html|css|Dockerfile)$|Dockerfile$/;
const SKIPPED = new Set(['node_modules', 'screenshots', 'fixtures']);

/** Documents that live outside this repository: a reader of the repository cannot follow them. */
const OUTSIDE = [
  { name: 'docs/decisions.md', pattern: /\bDECISIONS(\.md)?\b/ },
  { name: 'docs/contract.md', pattern: /\bapi-v2(\.md)?\b/ },
  { name: 'docs/architecture.md', pattern: /(?<![\w/-])design\.md\b/ },
  { name: 'docs/architecture.md', pattern: /(?<![\w/-])style\.md\b/ },
  { name: 'an issue number', pattern: /\b[Ii]ssues? #?\d+\b/ },
];

function filesUnder(path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return TEXT_FILE.test(path) ? [path] : [];
  return readdirSync(full).filter((name) => !SKIPPED.has(name)).flatMap((name) => filesUnder(join(path, name)));
}

const files = SCANNED.flatMap(filesUnder).filter((file) => file !== relative(root, new URL(import.meta.url).pathname));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slugOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s§-]/gu, '').replace(/\s/g, '-');
}

const headingsOf = new Map<string, string[]>();
/** A doc's headings, and the bold lead-ins of its paragraphs and list items (named places too). */
function headings(doc: string): string[] {
  let found = headingsOf.get(doc);
  if (!found) {
    const lines = readFileSync(join(root, doc), 'utf8').split('\n');
    found = [
      ...lines.filter((line) => /^#{1,6} /.test(line)).map((line) => line.replace(/^#+ /, '')),
      ...lines.flatMap((line) => [...line.matchAll(/^\s*(?:[-*]|\d+\.)?\s*\*\*([^*]+)\*\*/g)].map((m) => m[1])),
    ];
    headingsOf.set(doc, found);
  }
  return found;
}

interface Citation { file: string; line: number; text: string }

/** Why a citation does not resolve, or null when it does. */
export function unresolved(doc: string, section: string | undefined, quoted: string | undefined, anchor: string | undefined): string | null {
  if (!existsSync(join(root, doc))) return `${doc} does not exist`;
  const all = headings(doc);
  if (section && !all.some((h) => h.startsWith(`§${section} `) || h === `§${section}`)) return `${doc} has no heading §${section}`;
  if (quoted && !all.some((h) => h.includes(quoted))) return `${doc} has no heading "${quoted}"`;
  if (anchor && !all.some((h) => slugOf(h) === anchor)) return `${doc} has no heading #${anchor}`;
  return null;
}

describe('citations', () => {
  it('scans the tree', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('services/domain/check.ts');
  });

  it('never cite a document outside the repository', () => {
    const outside: string[] = [];
    for (const file of files) {
      readFileSync(join(root, file), 'utf8').split('\n').forEach((text, i) => {
        for (const { name, pattern } of OUTSIDE) if (pattern.test(text)) outside.push(`${file}:${i + 1} cites ${name}: ${text.trim().slice(0, 120)}`);
      });
    }
    expect(outside).toEqual([]);
  });

  it('resolve every docs/ citation to its file and heading', () => {
    const citation = /\bdocs\/([\w./-]+\.md)(?:#([\w§-]+)|\s+§(\d+)|\s+"([^"]+)")?/g;
    const broken: Citation[] = [];
    let count = 0;
    for (const file of files) {
      readFileSync(join(root, file), 'utf8').split('\n').forEach((text, i) => {
        for (const m of text.matchAll(citation)) {
          count += 1;
          const why = unresolved(`docs/${m[1]}`, m[3], m[4], m[2]);
          if (why) broken.push({ file, line: i + 1, text: why });
        }
      });
    }
    expect(count).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('can tell a broken citation', () => {
    expect(unresolved('docs/decisions.md', '1', undefined, undefined)).toBeNull();
    expect(unresolved('docs/decisions.md', '99', undefined, undefined)).toMatch(/no heading §99/);
    expect(unresolved('docs/nowhere.md', undefined, undefined, undefined)).toMatch(/does not exist/);
    expect(unresolved('docs/matching.md', undefined, 'Names', undefined)).toBeNull();
    expect(unresolved('docs/matching.md', undefined, 'No such heading', undefined)).toMatch(/no heading/);
  });
});

/** `a.{x,y}.ts` → `a.x.ts`, `a.y.ts` (one level of braces, as the docs write them). */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*)\}/.exec(path);
  if (!m) return [path];
  return m[1].split(',').flatMap((part) => expandBraces(path.slice(0, m.index) + part + path.slice(m.index + m[0].length)));
}

/** Whether a named path exists; a `*` in its last part stands for any text, and some file must match. */
function pathExists(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(root, path));
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash);
  const pattern = new RegExp(`^${path.slice(slash + 1).split('*').map((s) => s.replace(/[.+?^$()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return !dir.includes('*') && existsSync(join(root, dir)) && readdirSync(join(root, dir)).some((name) => pattern.test(name));
}

/** The repository paths a text names in backticks: `services/…`, `test/…`, `infra/…`, `schemas/…`, `docs/…`. */
export function namedPaths(text: string): string[] {
  return [...text.matchAll(/`((?:services|test|infra|schemas|docs)\/[\w./*{},-]*)`/g)]
    .flatMap((m) => expandBraces(m[1].replace(/[.,]$/, '')));
}

/** Outputs a command writes (named so a reader knows where to look), not files of the repository. */
const GENERATED = new Set(['test/faults/out/fault-table.md']);

const DOCS = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe.each(DOCS)('%s', (doc) => {
  it('names only files and folders that exist', () => {
    const missing = namedPaths(readFileSync(join(root, doc), 'utf8')).filter((path) => !GENERATED.has(path) && !pathExists(path));
    expect(missing).toEqual([]);
  });
});

describe('the newcomer\'s tour (docs/README.md)', () => {
  it('follows a job through the folders of the pipeline, in order, on one page', () => {
    const tour = readFileSync(join(root, 'docs/README.md'), 'utf8');
    expect(tour.split('\n').length).toBeLessThanOrEqual(100);
    expect(namedPaths(tour).length).toBeGreaterThan(40);
    const first = (folder: string) => tour.indexOf(`services/${folder}/`);
    const stages = ['api', 'ingest', 'pipeline', 'matcher', 'projection'].map(first);
    expect(stages.every((at) => at >= 0)).toBe(true);
    expect(stages).toEqual([...stages].sort((x, y) => x - y));
  });

  it('can tell a named path that does not exist', () => {
    expect(namedPaths('`services/api/{app,auth}.ts`, `test/e2e/one-check.*.test.ts` and `docs/x.md`.'))
      .toEqual(['services/api/app.ts', 'services/api/auth.ts', 'test/e2e/one-check.*.test.ts', 'docs/x.md']);
    expect(pathExists('services/api/app.ts')).toBe(true);
    expect(pathExists('test/e2e/one-check.*.test.ts')).toBe(true);
    expect(pathExists('test/e2e/no-such-scenario.*.test.ts')).toBe(false);
    expect(pathExists('services/api/nowhere.ts')).toBe(false);
  });
});

/** The folders of the groups the layout draws one level deeper (docs/architecture.md "Layout"). */
const GROUPS = ['registers', 'ingest', 'api'];

describe("README.md's layout", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const layout = readme.slice(readme.indexOf('## Layout'));
  const foldersOf = (path: string) => readdirSync(join(root, path), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

  it('names every folder of services/', () => {
    const folders = foldersOf('services');
    expect(folders.length).toBeGreaterThan(8);
    expect(folders.filter((name) => !new RegExp(`^  ${name}/`, 'm').test(layout))).toEqual([]);
  });

  it('names every folder of the groups registers/, ingest/ and api/, indented under the group', () => {
    const missing = GROUPS.flatMap((group) => {
      const block = layout.slice(layout.search(new RegExp(`^  ${group}/`, 'm'))).split(/\n(?=  \S)/)[0];
      return foldersOf(`services/${group}`).filter((name) => !new RegExp(`^    ${name}/`, 'm').test(block)).map((name) => `${group}/${name}`);
    });
    expect(missing).toEqual([]);
  });
});
