import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNEL_ISSUE_TEXTS } from '../../../services/api/channel-issues.ts';
import { ANSWERS as CLIENT_ERROR_ANSWERS } from '../../../services/api/client-errors.ts';
import { ISSUE_TEXTS, MAPPING_ISSUE_TEXTS } from '../../../services/api/issue-texts.ts';
import { TEXTS as INTAKE_ISSUE_TEXTS } from '../../../services/api/jobs/intake-issues.ts';
import { catalog as API_MESSAGES } from '../../../services/api/messages.ts';
import { customIssueTexts, typeNames } from '../../../services/api/zod-issues.ts';
import { MESSAGES as FILE_REFUSALS } from '../../../services/ingest/files/refusal.ts';
import { PHONE_OUTCOME_WORDS, REASON_WORDS, STATUS_WORDS } from '../../../services/ingest/files/verdict-words.ts';
import { catalog as INBOUND_MESSAGES, LETTER_TEXTS } from '../../../services/ingest/inbound/messages.ts';
import { MAPPING_WARNING_TEXTS } from '../../../services/ingest/files/mapping-warnings.ts';
import { TEXTS as JOB_INPUT_TEXTS } from '../../../services/ingest/jobs/errors.ts';
import { FIELD_LABELS, pageMessages } from '../../../services/api/web/page-messages.ts';
import { TEXT as CERTIFICATE_TEXTS } from '../../../services/api/certificate-pdf.ts';
import { TEXT as DOCS_PAGE_TEXTS } from '../../../services/api/docs-page.ts';
import { TEXT as EMAIL_REPLY_TEXTS } from '../../../services/ingest/email/reply.ts';
import { TEXT as INVITATION_TEXTS } from '../../../services/api/people/invitation-mail.ts';
import { APPROXIMATE_SUFFIX, LABELS as MATCH_LABELS, PREVIOUS_SUFFIX } from '../../../services/domain/status.ts';
import { LABEL as WITHHELD_LABEL } from '../../../services/domain/withheld-verdict.ts';
import { LABEL as LIST_NOT_READY_LABEL } from '../../../services/domain/list-not-ready.ts';
import {
  CHANGE_HEADER, COLUMN_WORD, COMPANY_HEADERS, LEGEND_NAME, PHONE_HEADERS, SHEET_NAME, VERDICT_HEADERS,
} from '../../../services/ingest/files/result-file.ts';
import { OWN_LIST } from '../../../services/ingest/uploads/result-file.ts';

/**
 * The user-facing texts (docs/architecture.md "Conventions"): every table of them, each key in
 * both languages, with the same placeholders in each.
 */
const TABLES: Record<string, Record<string, unknown>> = {
  'api/messages.ts': API_MESSAGES,
  'api/issue-texts.ts': ISSUE_TEXTS,
  'api/issue-texts.ts mapping': MAPPING_ISSUE_TEXTS,
  'api/channel-issues.ts': CHANNEL_ISSUE_TEXTS,
  'api/jobs/intake-issues.ts': INTAKE_ISSUE_TEXTS,
  'api/zod-issues.ts typeNames': typeNames,
  'api/zod-issues.ts customIssueTexts': customIssueTexts,
  'api/client-errors.ts': CLIENT_ERROR_ANSWERS,
  'ingest/files/refusal.ts': FILE_REFUSALS,
  'ingest/files/verdict-words.ts status': STATUS_WORDS,
  'ingest/files/verdict-words.ts reasons': REASON_WORDS,
  'ingest/files/verdict-words.ts phone': PHONE_OUTCOME_WORDS,
  'ingest/inbound/messages.ts': INBOUND_MESSAGES,
  'ingest/inbound/messages.ts letters': LETTER_TEXTS,
  'ingest/files/mapping-warnings.ts': MAPPING_WARNING_TEXTS,
  'ingest/jobs/errors.ts': JOB_INPUT_TEXTS,
  'api/web/page-messages.ts': pageMessages,
  'api/web/page-messages.ts field labels': FIELD_LABELS,
  'domain/status.ts labels': MATCH_LABELS,
  'domain/status.ts suffixes': { previous: PREVIOUS_SUFFIX, approximate: APPROXIMATE_SUFFIX },
  'domain/withheld-verdict.ts, list-not-ready.ts': { withheld: WITHHELD_LABEL, list_not_ready: LIST_NOT_READY_LABEL },
  'ingest/files/result-file.ts words': { change: CHANGE_HEADER, column: COLUMN_WORD, sheet: SHEET_NAME, legend: LEGEND_NAME },
  'ingest/uploads/result-file.ts': { own_list: OWN_LIST },
};

/** Column headers of the result file, one list per language: as many in each, none empty. */
const HEADER_ROWS: Record<string, Record<'da' | 'en', readonly string[]>> = {
  verdict: VERDICT_HEADERS, company: COMPANY_HEADERS, phone: PHONE_HEADERS,
};

/** A text as a reader sees it: a template function is called with a sample number. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'function') return String((value as (n: number) => unknown)(7));
  return null;
}

/** `{name}` placeholders a text fills in later (the page's templates use them). */
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Problems of one table: keys missing a language, empty texts, placeholders that differ. */
function problemsOf(table: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, entry] of Object.entries(table)) {
    const { da, en } = (entry ?? {}) as { da?: unknown; en?: unknown };
    const daText = textOf(da);
    const enText = textOf(en);
    if (!daText?.trim()) problems.push(`${key}: no Danish text`);
    if (!enText?.trim()) problems.push(`${key}: no English text`);
    if (daText && enText && placeholders(daText).join() !== placeholders(enText).join()) {
      problems.push(`${key}: placeholders differ (${placeholders(daText).join()} / ${placeholders(enText).join()})`);
    }
  }
  return problems;
}

/**
 * The tables written language first (`{ da: { key: … }, en: { key: … } }`), where a document's
 * texts read better together (the certificate, the docs page, the e-mails).
 */
const LANGUAGE_FIRST_TABLES: Record<string, Record<string, Record<string, unknown>>> = {
  'api/certificate-pdf.ts': CERTIFICATE_TEXTS,
  'api/docs-page.ts': DOCS_PAGE_TEXTS,
  'ingest/email/reply.ts': EMAIL_REPLY_TEXTS,
  'api/people/invitation-mail.ts': INVITATION_TEXTS,
};

/**
 * Problems of a language-first table: a key in one language only, an empty text, placeholders
 * that differ, or a template taking other arguments in the other language.
 */
function problemsOfLanguageFirst(table: Record<string, Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const { da = {}, en = {} } = table;
  for (const key of new Set([...Object.keys(da), ...Object.keys(en)])) {
    const [d, e] = [da[key], en[key]];
    if (typeof d === 'function' || typeof e === 'function') {
      if (typeof d !== 'function' || typeof e !== 'function' || d.length !== e.length) problems.push(`${key}: templates differ`);
      continue;
    }
    if (typeof d !== 'string' || !d.trim()) problems.push(`${key}: no Danish text`);
    if (typeof e !== 'string' || !e.trim()) problems.push(`${key}: no English text`);
    if (typeof d === 'string' && typeof e === 'string' && placeholders(d).join() !== placeholders(e).join()) problems.push(`${key}: placeholders differ`);
  }
  return problems;
}

describe('message catalogue', () => {
  it.each(Object.keys(TABLES))('%s has every key in Danish and English', (name) => {
    expect(Object.keys(TABLES[name]).length).toBeGreaterThan(0);
    expect(problemsOf(TABLES[name])).toEqual([]);
  });

  it.each(Object.keys(LANGUAGE_FIRST_TABLES))('%s has every key in Danish and English', (name) => {
    expect(Object.keys(LANGUAGE_FIRST_TABLES[name].da ?? {}).length).toBeGreaterThan(0);
    expect(problemsOfLanguageFirst(LANGUAGE_FIRST_TABLES[name])).toEqual([]);
  });

  it.each(Object.keys(HEADER_ROWS))('the result file\'s %s headers have one of each in both languages', (name) => {
    const { da, en } = HEADER_ROWS[name];
    expect(da.length).toBeGreaterThan(0);
    expect(da.length).toBe(en.length);
    expect([...da, ...en].filter((text) => !text.trim())).toEqual([]);
  });

  it('tells a language-first key that one language lacks or templates differently', () => {
    expect(problemsOfLanguageFirst({ da: { a: 'Hej', b: (x: string) => x, c: 'Hej {n}' }, en: { b: (x: string, y: string) => x + y, c: 'Hi' } })).toEqual([
      'a: no English text', 'b: templates differ', 'c: placeholders differ',
    ]);
  });

  it('tells a key that lacks a language or a placeholder', () => {
    expect(problemsOf({ a: { da: 'Hej' }, b: { da: 'Hej {name}', en: 'Hello' }, c: { da: () => '', en: 'x' } })).toEqual([
      'a: no English text', 'b: placeholders differ (name / )', 'c: no Danish text',
    ]);
  });
});

const root = new URL('../../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [relative(root, full)] : [];
  });
}

/** The files whose tables are checked above: a table of texts anywhere else fails the test below. */
const CATALOGUE_FILES = [
  'api/certificate-pdf.ts', 'api/channel-issues.ts', 'api/client-errors.ts', 'api/docs-page.ts', 'api/issue-texts.ts', 'api/jobs/intake-issues.ts',
  'api/messages.ts', 'api/zod-issues.ts', 'domain/list-not-ready.ts', 'domain/status.ts', 'domain/withheld-verdict.ts',
  'ingest/email/reply.ts', 'ingest/files/mapping-warnings.ts', 'ingest/files/refusal.ts', 'ingest/files/result-file.ts',
  'ingest/files/verdict-words.ts', 'ingest/inbound/messages.ts', 'ingest/jobs/errors.ts', 'ingest/uploads/result-file.ts',
  'api/people/invitation-mail.ts', 'api/web/page-messages.ts',
].map((file) => `services/${file}`);

/** A line of a da/en table: `da: '…'`, `da: [`, `da: () =>`, `da: {` opening the Danish texts. */
const TABLE_ROW = /(^\s*|[{,]\s*)da: ?(['"`[(]|\{\s*$|\{\s*\w)/m;

describe('text tables', () => {
  it('are all in the files the catalogue checks', () => {
    expect(TABLE_ROW.test("  none: { da: 'Intet match', en: 'No match' },")).toBe(true);
    expect(TABLE_ROW.test('const messages = { da: {}, en: {} };')).toBe(false);
    const withTables = sourceFiles(join(root, 'services')).filter((file) => TABLE_ROW.test(readFileSync(join(root, file), 'utf8')));
    expect(withTables.sort()).toEqual([...CATALOGUE_FILES].sort());
  });
});

/**
 * A text chosen inline by language (`locale === 'da' ? '…' : '…'`, or a helper taking both
 * texts, `l === 'da' ? da : en`) rather than from a table. Choosing a number format or the order
 * of the two languages is no text.
 */
function inlineTextLines(source: string): string[] {
  return source.split('\n')
    .filter((line) => /=== 'da'\s*\?|=== 'da'$/.test(line))
    .filter((line) => !line.includes("'da-DK'") && !/\[\s*'da',\s*'en'\s*\]/.test(line));
}

describe('inline da/en texts', () => {
  it('are told from a number format or a language order', () => {
    expect(inlineTextLines([
      "describe: (l) => (l === 'da' ? 'Skal udfyldes.' : 'Is required.'),",
      "const issue = (path, da, en) => ({ path, describe: (l) => (l === 'da' ? da : en) });",
      "return locale === 'da'",
      "const n = (v) => v.toLocaleString(l === 'da' ? 'da-DK' : 'en');",
      "const order = first === 'da' ? ['da', 'en'] : ['en', 'da'];",
    ].join('\n'))).toHaveLength(3);
  });

  it('are none: every user-facing text is in a table above (docs/architecture.md "Conventions")', () => {
    const found: Record<string, string[]> = {};
    const files = sourceFiles(join(root, 'services'));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const lines = inlineTextLines(readFileSync(join(root, file), 'utf8'));
      if (lines.length > 0) found[file] = lines.map((line) => line.trim());
    }
    expect(found).toEqual({});
  });
});
