import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWebPage, pageTexts } from '../../../../services/api/web/assets.ts';
import { pageMessages } from '../../../../services/api/web/page-messages.ts';
import { textsFor } from '../../../../services/api/web/page/texts.ts';
import { issuesFromZod } from '../../../../services/api/zod-issues.ts';
import { z } from 'zod';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pageDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'web-assets-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('the web page build (services/api/web/assets.ts)', () => {
  it('strips types, points sibling imports at the .js modules and serves index.html at /', () => {
    const page = buildWebPage(pageDir({
      'index.html': '<!doctype html><title>x</title>',
      'main.ts': "import { add } from './maths.ts';\nimport type { CheckJob } from '../../api/schemas/check-job.ts';\nconst n: number = add(1, 2);\nexport const job: CheckJob | null = null;\nexport { n };\n",
      'maths.ts': 'export function add(a: number, b: number): number { return a + b; }\n',
      'styles.css': 'body { color: #000; }',
      'notes.md': 'not served',
    }));
    expect([...page.keys()].sort()).toEqual(['/', '/app/main.js', '/app/maths.js', '/app/styles.css', '/app/texts.json']);
    const main = page.get('/app/main.js')!.body.toString();
    expect(main).toContain("from './maths.js'");
    expect(main).not.toContain('CheckJob');
    expect(main).not.toMatch(/:\s*number/);
    expect(page.get('/app/main.js')!.contentType).toMatch(/^text\/javascript/);
    expect(page.get('/')!.etag).toMatch(/^"[\w-]{22}"$/);
  });

  it('refuses a module that imports anything but a sibling (no server code reaches the browser)', () => {
    expect(() => buildWebPage(pageDir({ 'main.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n" })))
      .toThrow(/main\.ts imports node:fs/);
    expect(() => buildWebPage(pageDir({ 'main.ts': "import { h } from '../dom.ts';\nexport const x = h;\n" })))
      .toThrow(/only sibling modules/);
  });

  it('builds the real page, and texts.json has every text in both languages plus the service\'s own labels', () => {
    const page = buildWebPage();
    expect(page.has('/')).toBe(true);
    expect(page.has('/app/main.js')).toBe(true);
    const texts = pageTexts();
    expect(Object.keys(texts.messages.da)).toEqual(Object.keys(pageMessages));
    expect(Object.keys(texts.messages.en)).toEqual(Object.keys(pageMessages));
    for (const field of texts.fields) expect(pageMessages).toHaveProperty(`field_${field}`);
    expect(texts.fields).toContain('name');
    expect(texts.fields).not.toContain('header_row');
    expect(texts.levels.en[5]).toBe('Same name and address');
    expect(texts.verdict_headers.da[0]).toBe('Status');
  });

  it('gives the API\'s issue lines in the other language: catalogue texts and texts with a limit or a list in them', () => {
    const schema = z.strictObject({ name: z.string().max(200), kind: z.enum(['a', 'b']), count: z.number(), at: z.uuid() });
    const issues = issuesFromZod(schema.safeParse({ name: 'x'.repeat(201), kind: 'c', count: 'no', at: 'nope', extra: 1 }).error!.issues,
      { name: 'x'.repeat(201), kind: 'c', count: 'no', at: 'nope', extra: 1 });
    expect(issues.length).toBe(5);
    const english = textsFor(pageTexts(), 'en');
    const danish = textsFor(pageTexts(), 'da');
    for (const issue of issues) {
      // Each Danish line becomes the API's own English line, and back.
      expect(english.apiMessage(issue.describe('da'), 'da'), issue.path).toBe(issue.describe('en'));
      expect(danish.apiMessage(issue.describe('en'), 'en'), issue.path).toBe(issue.describe('da'));
    }
    expect(english.apiMessage('Kolonnen findes ikke i filen.', 'da')).toBe('The column does not exist in the file.');
    expect(english.apiMessage('En tekst, der ikke er i noget katalog.', 'da')).toBeNull();
  });
});
