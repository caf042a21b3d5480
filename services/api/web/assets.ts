import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { extname, join } from 'node:path';
import { matchLabel } from '../../domain/status.ts';
import type { Locale, MatchCode } from '../../domain/types.ts';

export type { PageTexts };
import { ColumnMappingSchema } from '../schemas/check-job.ts';
import { VERDICT_HEADERS } from '../../ingest/files/result-file.ts';
import { FIELD_LABELS, pageMessages } from './page-messages.ts';
import { message, messageCatalogue } from '../messages.ts';
import { FILE_REFUSAL_CODES, fileRefusalMessage } from '../../ingest/files/refusal.ts';
import { ISSUE_TEXTS, issueText, MAPPING_ISSUE_TEXTS } from '../issue-texts.ts';
import { TEXTS as INTAKE_ISSUE_TEXTS } from '../jobs/intake-issues.ts';
import { customIssueTexts, typeNames } from '../zod-issues.ts';
import { TEXTS as JOB_INPUT_TEXTS } from '../../ingest/jobs/errors.ts';
import { CHANNEL_ISSUE_TEXTS } from '../channel-issues.ts';
import type { PageTexts } from './page/contract.ts';

/** One file of the page, ready to send. */
export interface WebAsset {
  contentType: string;
  body: Buffer;
  /** Strong validator of `body` (the page is answered with `Cache-Control: no-cache` + ETag). */
  etag: string;
}

/** The page's files by URL path: `/` (index.html) and `/app/<file>`. */
export type WebPage = ReadonlyMap<string, WebAsset>;

export const PAGE_SOURCE_DIR = join(import.meta.dirname, 'page');
const LEVEL_CODES: MatchCode[] = ['none', 'household', 'surname', 'given_name', 'name_building', 'name_address'];
const LOCALES: Locale[] = ['da', 'en'];
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

/** A da/en table (`{ key: { da, en } }`) as one table per language, as the page looks texts up. */
function byLocale(table: Record<string, Record<Locale, string>>): Record<Locale, Record<string, string>> {
  const out = { da: {}, en: {} } as Record<Locale, Record<string, string>>;
  for (const [key, text] of Object.entries(table)) for (const locale of LOCALES) out[locale][key] = text[locale];
  return out;
}

export function pageTexts(): PageTexts {
  return {
    messages: byLocale(pageMessages),
    fields: Object.keys(ColumnMappingSchema.shape).filter((field) => field !== 'header_row'),
    levels: { da: LEVEL_CODES.map((code) => matchLabel(code, 'da')!), en: LEVEL_CODES.map((code) => matchLabel(code, 'en')!) },
    verdict_headers: VERDICT_HEADERS,
    // The API's sentences and the file refusals' (a refused upload's message is one of those).
    api_messages: [
      ...messageCatalogue(),
      ...FILE_REFUSAL_CODES.map((code) => ({ da: fileRefusalMessage(code, 'da'), en: fileRefusalMessage(code, 'en') })),
      ...issueMessages(),
    ],
    api_templates: issueTemplates(),
    field_labels: byLocale(FIELD_LABELS),
    api_validation: { da: message('validation', 'da'), en: message('validation', 'en') },
  };
}

/**
 * The texts of `details.issues[].message` from the API's issue catalogues, so that the issue
 * lines of a shown error follow a language switch like its message (docs/web.md "Language").
 */
function issueMessages(): PageTexts['api_messages'] {
  const pair = (text: Readonly<Record<Locale, string>>) => ({ da: text.da, en: text.en });
  return [
    ...Object.values(ISSUE_TEXTS).map(pair),
    ...Object.values(customIssueTexts).map(pair),
    ...Object.values(JOB_INPUT_TEXTS).map(pair),
    // "Must be {type}." with the type's name written in each language: a fixed pair per type.
    ...Object.values(typeNames).map((name) => {
      const text = issueText('must_be_type', (l) => ({ type: name[l] }));
      return { da: text('da'), en: text('en') };
    }),
  ];
}

/** The issue texts with a value in them, as `{placeholder}` templates (the page fills them in). */
function issueTemplates(): PageTexts['api_templates'] {
  // The intake's texts are functions of their limit: called with the placeholder, they are the templates.
  const placeholder = '{n}' as unknown as number;
  return [
    // must_be_type is given as fixed pairs above: as a template "Skal være {type}." would also
    // take "Skal være en af …" and leave the type's name untranslated.
    ...Object.entries(ISSUE_TEXTS).filter(([key, text]) => key !== 'must_be_type' && text.da.includes('{')).map(([, text]) => ({ da: text.da, en: text.en })),
    ...Object.values(CHANNEL_ISSUE_TEXTS).map((text) => ({ da: text.da, en: text.en })),
    ...Object.values(MAPPING_ISSUE_TEXTS).map((text) => ({ da: text.da, en: text.en })),
    ...Object.values(INTAKE_ISSUE_TEXTS).map((text) => ({ da: text.da(placeholder), en: text.en(placeholder) })),
  ];
}

/**
 * The page is plain TypeScript modules in services/api/web/page, turned into browser modules here,
 * once per process at start, by Node's own type stripping (the same that runs our .ts files):
 * no bundler, no build step to forget, nothing committed twice. An import of anything but a
 * sibling module (`./x.ts`) fails the build, so the page never pulls server code in at run time
 * (`import type` of the API's schemas is erased).
 */
export function buildWebPage(dir: string = PAGE_SOURCE_DIR): WebPage {
  const page = new Map<string, WebAsset>();
  const add = (path: string, contentType: string, body: Buffer) =>
    page.set(path, { contentType, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  for (const name of readdirSync(dir).sort()) {
    const ext = extname(name);
    const source = readFileSync(join(dir, name));
    if (name === 'index.html') add('/', TYPES['.html'], source);
    else if (ext === '.ts') add(`/app/${name.slice(0, -3)}.js`, TYPES['.js'], Buffer.from(browserModule(name, source.toString('utf8'))));
    else if (ext === '.css' || ext === '.svg') add(`/app/${name}`, TYPES[ext], source);
  }
  add('/app/texts.json', TYPES['.json'], Buffer.from(JSON.stringify(pageTexts())));
  return page;
}

/**
 * A module specifier: after `from` of an import/export statement that starts a line, after a
 * bare `import`, or in `import(…)`. Only statements, not the word "from" in a string of the
 * code (a filter named 'from' once read as an import of its neighbouring text).
 */
const IMPORT_SPECIFIER = /(^\s*(?:import|export)\b[^;'"]*?\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*)(['"])([^'"]+)\2/gm;

function browserModule(name: string, source: string): string {
  const js = withoutItsExperimentalWarning(() => stripTypeScriptTypes(source, { mode: 'strip' }));
  return js.replace(IMPORT_SPECIFIER, (_all, lead: string, quote: string, specifier: string) => {
    const sibling = /^\.\/([a-z0-9-]+)\.ts$/.exec(specifier);
    if (!sibling) throw new Error(`web page module ${name} imports ${specifier}: only sibling modules (./x.ts) reach the browser`);
    return `${lead}${quote}./${sibling[1]}.js${quote}`;
  });
}

/**
 * Node 24 prints "ExperimentalWarning: stripTypeScriptTypes is an experimental feature" on stderr
 * at the first call, at every `npm start`; the page is built at start, and the function's output
 * is checked by the web page tests. Only that one warning is held back, only during the call:
 * every other warning still reaches the process's listeners.
 */
function withoutItsExperimentalWarning<T>(strip: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = function emitOthers(this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (String(warning).includes('stripTypeScriptTypes')) return;
    Reflect.apply(emit, this, [warning, ...rest]);
  };
  try {
    return strip();
  } finally {
    process.emitWarning = emit;
  }
}
