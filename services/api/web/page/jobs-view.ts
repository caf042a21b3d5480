import type { CheckJob } from './contract.ts';
import { h, replace } from './dom.ts';
import { scrollingTable, statusText, type App } from './ui.ts';

const PAGE = 20;
const SOURCES = ['upload', 'email', 'sftp', 'api', 'monitor', 'connector'];
const STATUSES = ['draft', 'awaiting_payment', 'queued', 'running', 'done', 'failed', 'deleted'];

/**
 * The organisation's jobs, each with open and delete (delete asks once more, in place). As the
 * history (`#history`) it has filters (source, status, days, a text in the file name or
 * reference) and pages on; under the upload it shows the most recent ones.
 */
export function jobsView(app: App, current: () => string | null, history = false) {
  const { texts } = app;
  const body = h('div', {});
  const refreshButton = h('button', { type: 'button', class: 'secondary' }, texts.t('jobs_refresh'));
  const moreButton = h('button', { type: 'button', class: 'secondary', hidden: true }, texts.t('jobs_more'));
  const select = (id: string, label: string, values: string[], text: (v: string) => string) => [
    h('label', { for: id }, label),
    h('select', { id, name: id }, h('option', { value: '' }, texts.t('filter_all')), ...values.map((v) => h('option', { value: v }, text(v)))),
  ];
  const filters = history ? h('form', { class: 'filters', novalidate: true, 'aria-label': texts.t('filters_label') },
    h('div', {}, ...select('filter-source', texts.t('filter_source'), SOURCES, (v) => texts.t(`source_${v}`))),
    h('div', {}, ...select('filter-status', texts.t('jobs_status'), STATUSES, (v) => statusText(texts, v))),
    h('div', {}, h('label', { for: 'filter-from' }, texts.t('filter_from')), h('input', { id: 'filter-from', name: 'from', type: 'date' })),
    h('div', {}, h('label', { for: 'filter-to' }, texts.t('filter_to')), h('input', { id: 'filter-to', name: 'to', type: 'date' })),
    h('div', {}, h('label', { for: 'filter-q' }, texts.t('filter_search')), h('input', { id: 'filter-q', name: 'q', type: 'search', maxlength: '200' })),
    h('div', { class: 'filter-actions' }, h('button', { type: 'submit' }, texts.t('filter_apply')))) : null;
  const element = h('section', { class: 'card', 'aria-labelledby': 'jobs-title', 'data-testid': 'jobs' },
    h('h2', { id: 'jobs-title', tabindex: -1 }, texts.t(history ? 'history_title' : 'jobs_title')), filters, body,
    h('div', { class: 'actions' }, refreshButton, moreButton));
  let shownJobs: CheckJob[] = [];
  const filterValues = (): Record<string, string> => {
    if (!filters) return {};
    const values: Record<string, string> = {};
    const pairs: Array<[string, string]> = [['filter-source', 'source'], ['filter-status', 'status'], ['filter-from', 'from'], ['filter-to', 'to'], ['filter-q', 'q']];
    for (const [id, name] of pairs) {
      const value = (filters.querySelector<HTMLInputElement | HTMLSelectElement>(`#${id}`)?.value ?? '').trim();
      if (value) values[name] = value;
    }
    return values;
  };

  let lastAsked = 0;

  function actions(job: CheckJob): HTMLElement {
    const name = job.filename ?? texts.t('no_file_name');
    const cell = h('td', { class: 'row-actions' });
    const open = h('button', { type: 'button', class: 'link', 'aria-label': texts.t('open_job', { name }) }, texts.t('open'));
    open.addEventListener('click', async () => {
      app.clearError();
      try {
        app.showJob(await app.api.getJob(job.id));
      } catch (error) {
        app.fail(error);
      }
    });
    const remove = h('button', { type: 'button', class: 'link danger', 'aria-label': texts.t('delete_job', { name }) }, texts.t('delete'));
    const confirm = h('button', { type: 'button', class: 'danger', 'aria-label': texts.t('delete_confirm', { name }) }, texts.t('delete_confirm', { name }));
    const cancel = h('button', { type: 'button', class: 'link' }, texts.t('cancel'));
    const ask = () => {
      replace(cell, confirm, cancel);
      confirm.focus();
    };
    remove.addEventListener('click', ask);
    cancel.addEventListener('click', () => {
      replace(cell, open, job.status === 'deleted' ? null : remove);
      remove.focus();
    });
    confirm.addEventListener('click', async () => {
      app.clearError();
      try {
        const deleted = await app.api.deleteJob(job.id);
        if (current() === job.id) app.showJob(deleted);
        await refresh();
        element.querySelector<HTMLElement>('#jobs-title')?.focus();
      } catch (error) {
        app.fail(error);
      }
    });
    replace(cell, open, job.status === 'deleted' ? null : remove);
    return cell;
  }

  async function refresh(more = false): Promise<void> {
    const asked = ++lastAsked;
    const last = more ? shownJobs[shownJobs.length - 1] : undefined;
    const page = await app.api.listJobs(PAGE, { ...filterValues(), ...(last ? { after: last.id } : {}) });
    // Only the newest question's answer is shown: filters given back after a language switch ask again at once.
    if (asked !== lastAsked) return;
    shownJobs = more ? [...shownJobs, ...page.data] : page.data;
    moreButton.hidden = !page.has_more;
    const data = shownJobs;
    if (data.length === 0) {
      replace(body, h('p', { class: 'muted' }, texts.t('jobs_empty')));
      return;
    }
    const table = h('table', { class: 'jobs' },
      // File, status and actions first: on a 360 px screen they are what fits without scrolling.
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, texts.t('jobs_file')),
        h('th', { scope: 'col' }, texts.t('jobs_status')),
        h('th', { scope: 'col' }, texts.t('jobs_actions')),
        h('th', { scope: 'col' }, texts.t('jobs_rows')),
        h('th', { scope: 'col' }, texts.t('jobs_created')))),
      h('tbody', {}, ...data.map((job) => h('tr', { 'data-job-id': job.id },
        h('td', { class: 'file-name' }, job.filename ?? '–'),
        h('td', { 'data-testid': 'job-row-status' }, statusText(texts, job.status)),
        actions(job),
        h('td', {}, `${texts.number(job.processed_count)} / ${texts.number(job.row_count)}`),
        h('td', {}, texts.dateTime(job.created_at))))));
    // The table's region needs a name of its own: the section already carries the title (axe landmark-unique).
    replace(body, scrollingTable(texts.t('jobs_table'), table));
  }

  refreshButton.addEventListener('click', () => void refresh().catch((error: unknown) => app.fail(error)));
  moreButton.addEventListener('click', () => void refresh(true).catch((error: unknown) => app.fail(error)));
  filters?.addEventListener('submit', (event) => {
    event.preventDefault();
    app.clearError();
    void refresh().catch((error: unknown) => app.fail(error));
  });
  return { element, refresh };
}
