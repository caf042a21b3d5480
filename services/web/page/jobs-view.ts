import type { CheckJob } from './contract.ts';
import { h, replace } from './dom.ts';
import { scrollingTable, statusText, type App } from './ui.ts';

/** The organisation's recent jobs, each with open and delete (delete asks once more, in place). */
export function jobsView(app: App, current: () => string | null) {
  const { texts } = app;
  const body = h('div', {});
  const refreshButton = h('button', { type: 'button', class: 'secondary' }, texts.t('jobs_refresh'));
  const element = h('section', { class: 'card', 'aria-labelledby': 'jobs-title', 'data-testid': 'jobs' },
    h('h2', { id: 'jobs-title' }, texts.t('jobs_title')), body, h('div', { class: 'actions' }, refreshButton));

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

  async function refresh(): Promise<void> {
    const { data } = await app.api.listJobs(20);
    if (data.length === 0) {
      replace(body, h('p', { class: 'muted' }, texts.t('jobs_empty')));
      return;
    }
    const table = h('table', { class: 'jobs' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, texts.t('jobs_created')),
        h('th', { scope: 'col' }, texts.t('jobs_file')),
        h('th', { scope: 'col' }, texts.t('jobs_status')),
        h('th', { scope: 'col' }, texts.t('jobs_rows')),
        h('th', { scope: 'col' }, texts.t('jobs_actions')))),
      h('tbody', {}, ...data.map((job) => h('tr', { 'data-job-id': job.id },
        h('td', {}, texts.dateTime(job.created_at)),
        h('td', {}, job.filename ?? '–'),
        h('td', { 'data-testid': 'job-row-status' }, statusText(texts, job.status)),
        h('td', {}, `${texts.number(job.processed_count)} / ${texts.number(job.row_count)}`),
        actions(job)))));
    replace(body, scrollingTable(texts.t('jobs_title'), table));
  }

  refreshButton.addEventListener('click', () => void refresh().catch((error: unknown) => app.fail(error)));
  return { element, refresh };
}
