import { ApiFailure } from './api.ts';
import type { Api } from './api.ts';
import type { CheckJob } from './contract.ts';
import { byId, h, replace } from './dom.ts';
import type { Texts } from './texts.ts';

/** What every view gets from main.ts. */
export interface App {
  api: Api;
  texts: Texts;
  /** Shows a job in the job area (and opens it in the URL fragment). */
  showJob(job: CheckJob): void;
  /** Back to the upload area. */
  showUpload(): void;
  refreshJobs(): Promise<void>;
  /** Shows an error where a screen reader announces it; returns nothing, so callers may end there. */
  fail(error: unknown): void;
  clearError(): void;
}

/** The error on screen and the language it is in (a language switch shows it again, translated). */
let shownError: { error: unknown; locale: Texts['locale'] } | null = null;

/**
 * The error on screen in the new language, for a language switch: the page's own texts are in
 * both languages anyway, the API's sentence and its issue lines are translated from the API's own
 * catalogues (an issue text that is in none stays as the API gave it).
 */
export function errorIn(texts: Texts): unknown {
  if (!shownError) return null;
  const { error, locale } = shownError;
  if (!(error instanceof ApiFailure) || locale === texts.locale) return error;
  const { problem } = error;
  const translate = (text: string) => texts.apiMessage(text, locale) ?? text;
  const issues = problem.details?.issues?.map((issue) => ({ ...issue, message: translate(issue.message) }));
  return new ApiFailure({
    ...problem,
    message: translate(problem.message),
    ...(problem.details ? { details: { ...problem.details, ...(issues ? { issues } : {}) } } : {}),
  });
}

/** The API's error as it gave it: message, the issues at their fields, the request id. */
export function renderError(texts: Texts, error: unknown): void {
  shownError = { error, locale: texts.locale };
  const region = byId('alert');
  const problem = error instanceof ApiFailure ? error.problem : null;
  const allIssues = problem?.details?.issues ?? [];
  // The API tells a programmer to "see details.issues"; a person reads the lines below instead.
  const message = !problem || !problem.message ? texts.t('error_network')
    : allIssues.length > 0 && texts.isApiValidation(problem.message) ? texts.t('error_fix_below') : problem.message;
  // A refused file's one issue repeats the message ("Fil: <the same sentence>"): said once is
  // enough (docs/web.md "Issue lines in words").
  const issues = allIssues.filter((issue) => issue.message !== message);
  replace(
    region,
    h('div', { class: 'error' },
      h('h2', { class: 'error-title', tabindex: -1 }, texts.t('error_title')),
      h('p', { 'data-testid': 'error-message' }, message),
      issues.length > 0 ? h('ul', {}, ...issues.map((issue) => h('li', {}, issueLine(texts, issue)))) : null,
      problem?.request_id ? h('p', { class: 'muted' }, texts.t('error_request_id', { id: problem.request_id })) : null),
  );
  region.hidden = false;
  // The error is where the eye and the keyboard are: at the top of the page, focused, never off-screen.
  region.querySelector<HTMLElement>('.error-title')?.focus();
  region.scrollIntoView({ block: 'start' });
}

/**
 * One issue as a person reads it: the field in the words of the page's forms, then the API's
 * sentence ("Værtsnøgle: …"). A path the page has no words for is left out, never shown raw
 * (docs/web.md "Issue lines in words").
 */
function issueLine(texts: Texts, issue: { path: string; message: string }): string {
  const field = texts.fieldLabel(issue.path);
  return field === null ? issue.message : `${field}: ${issue.message}`;
}

export function clearError(): void {
  shownError = null;
  const region = byId('alert');
  region.replaceChildren();
  region.hidden = true;
}

/** A view's heading, focusable, so keyboard and screen-reader users land on the new content. */
export function heading(text: string): HTMLHeadingElement {
  return h('h2', { tabindex: -1, class: 'view-title' }, text);
}

export function focusHeading(container: Element): void {
  container.querySelector<HTMLElement>('.view-title')?.focus();
}

export function statusText(texts: Texts, status: string): string {
  return texts.t(`status_${status}`);
}

/** Saves bytes the page fetched (with the key in a header) as a download. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A table in a region that scrolls sideways on a narrow screen (and can be scrolled by keyboard). */
export function scrollingTable(label: string, table: HTMLTableElement): HTMLElement {
  return h('div', { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: 0 }, table);
}
