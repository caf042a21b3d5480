import type { CheckJob } from './contract.ts';
import { h, replace } from './dom.ts';
import { previewTable } from './draft-view.ts';
import type { Texts } from './texts.ts';
import { heading, saveBlob, statusText, type App } from './ui.ts';

/** Levels from the strongest match down, then the rows without a level. */
const LEVEL_KEYS = ['5', '4', '3', '2', '1', '0', 'unread'] as const;

export interface JobView {
  element: HTMLElement;
  /** New counts of the same job in the same status (the poll's answer). */
  update(job: CheckJob): void;
}

function titleOf(texts: Texts, job: CheckJob): string {
  if (job.status === 'done') return texts.t('done_title');
  if (job.status === 'failed') return texts.t('failed_title');
  if (job.status === 'deleted') return texts.t('deleted_title');
  return texts.t('progress_title');
}

/** processed/row count as a progress bar, the verdict counts and the level counts as a bar. */
function countsBlock(texts: Texts) {
  const progress = h('progress', { id: 'progress', max: 1, value: 0 });
  const rowsText = h('p', { 'data-testid': 'progress-text' });
  const counts = h('dl', { class: 'facts counts' });
  const bar = h('div', { class: 'levelbar', 'aria-hidden': 'true' });
  const legend = h('ul', { class: 'legend', 'data-testid': 'levels' });
  const element = h('div', {},
    h('label', { for: 'progress' }, texts.t('progress_label')), progress, rowsText, counts,
    h('h3', {}, texts.t('levels_title')), bar, legend);
  function update(job: CheckJob) {
    const total = Math.max(job.row_count, 1);
    progress.max = total;
    progress.value = Math.min(job.processed_count, total);
    rowsText.textContent = texts.t('progress_rows', { processed: texts.number(job.processed_count), total: texts.number(job.row_count) });
    replace(counts,
      h('dt', {}, texts.t('counts_allowed')), h('dd', { 'data-testid': 'count-allowed' }, texts.number(job.allowed_count)),
      h('dt', {}, texts.t('counts_blocked')), h('dd', { 'data-testid': 'count-blocked' }, texts.number(job.blocked_count)),
      h('dt', {}, texts.t('counts_manual')), h('dd', { 'data-testid': 'count-manual' }, texts.number(job.manual_count)));
    const processed = Math.max(job.processed_count, 1);
    bar.replaceChildren(...LEVEL_KEYS.map((key) => {
      const segment = h('span', { class: `segment level-${key}` });
      // CSSOM, not a style attribute: the page's CSP allows no inline style.
      segment.style.width = `${(100 * job.level_counts[key]) / processed}%`;
      return segment;
    }));
    replace(legend, ...LEVEL_KEYS.map((key) => h('li', {},
      h('span', { class: `swatch level-${key}`, 'aria-hidden': 'true' }),
      `${key === 'unread' ? texts.t('level_unread') : `${key}: ${texts.level(Number(key))}`}: `,
      h('strong', {}, texts.number(job.level_counts[key])))));
  }
  return { element, update };
}

function downloads(app: App, job: CheckJob): HTMLElement {
  const { texts } = app;
  const verified = h('p', { 'aria-live': 'polite', 'data-testid': 'certificate-status' });
  /** A button that saves what `get` answers, or shows the API's refusal. */
  const downloadButton = (label: string, get: () => Promise<{ blob: Blob; filename: string }>, secondary = false) => {
    const button = h('button', { type: 'button', ...(secondary ? { class: 'secondary' } : {}) }, label);
    button.addEventListener('click', async () => {
      app.clearError();
      try {
        const file = await get();
        saveBlob(file.blob, file.filename);
      } catch (error) {
        app.fail(error);
      }
    });
    return button;
  };
  const fileButton = downloadButton(texts.t('download_file'), () => app.api.resultFile(job.id));
  // Only the rows a marketer acts on (docs/files.md "Which rows"): the blocked to remove, the allowed to contact.
  const blockedButton = downloadButton(texts.t('download_blocked_rows'), () => app.api.resultFile(job.id, { rows: 'blocked' }), true);
  const allowedButton = downloadButton(texts.t('download_allowed_rows'), () => app.api.resultFile(job.id, { rows: 'allowed' }), true);
  const pdfButton = job.certificate_token ? downloadButton(texts.t('download_certificate_pdf'), () => app.api.certificatePdf(job.id), true) : null;
  const token = job.certificate_token;
  const certificateButton = token ? h('button', { type: 'button', class: 'secondary' }, texts.t('download_certificate')) : null;
  certificateButton?.addEventListener('click', async () => {
    app.clearError();
    saveBlob(new Blob([token!], { type: 'application/jwt' }), `certificate-${job.id}.jwt`);
    try {
      const { claims } = await app.api.verifyCertificate(token!);
      verified.textContent = texts.t('certificate_valid', {
        rows: texts.number(claims.row_count), version: claims.list_version.id, published: claims.list_version.published_on,
      });
    } catch (error) {
      app.fail(error);
    }
  });
  return h('div', {},
    job.status === 'done'
      ? h('div', { class: 'actions' }, fileButton, blockedButton, allowedButton, pdfButton, certificateButton)
      : h('div', { class: 'actions' }, pdfButton, certificateButton),
    verified);
}

export function jobView(app: App, job: CheckJob): JobView {
  const { texts } = app;
  const status = h('p', { class: 'status-line', 'aria-live': 'polite', 'data-testid': 'job-status' });
  const note = h('p', { class: 'note' });
  const counts = countsBlock(texts);
  const again = h('button', { type: 'button', class: 'secondary' }, texts.t('new_upload'));
  again.addEventListener('click', () => {
    app.showUpload();
  });
  const finished = job.status === 'done' || job.status === 'failed' || job.status === 'deleted';
  const element = h('section', { class: 'card', 'data-testid': 'job', 'data-status': job.status },
    heading(titleOf(texts, job)),
    h('dl', { class: 'facts' }, h('dt', {}, texts.t('draft_file')), h('dd', {}, job.filename ?? texts.t('no_file_name'))),
    status, note, counts.element,
    job.status === 'done' && job.preview.length > 0 ? previewTable(texts, job) : null,
    finished ? downloads(app, job) : null,
    h('div', { class: 'actions' }, again));

  function update(next: CheckJob) {
    status.textContent = `${texts.t('jobs_status')}: ${statusText(texts, next.status)}`;
    if (next.status === 'awaiting_payment' && next.price) {
      note.textContent = texts.t('awaiting_payment', { amount: texts.number(next.price.amount_cents / 100), currency: next.price.currency });
    } else if (next.status === 'failed') note.textContent = texts.t('failed_text', { error: next.error ?? '' });
    else if (next.status === 'deleted') note.textContent = texts.t('deleted_text');
    else note.textContent = '';
    counts.update(next);
  }
  update(job);
  return { element, update };
}
