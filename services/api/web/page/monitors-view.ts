import type { CheckJob, CheckResult, Monitor } from './contract.ts';
import { h, replace } from './dom.ts';
import { mappingEditor, previewTable, warningsBox } from './draft-view.ts';
import { appliedMappingOf, saveMappingForm, withSavedMapping } from './mappings-view.ts';
import { session } from './session.ts';
import { field } from './signin-view.ts';
import type { Texts } from './texts.ts';
import { heading, saveBlob, scrollingTable, type App } from './ui.ts';

/**
 * Monitors in the page (docs/monitors.md, docs/web.md "Monitors"): the organisation's monitors,
 * one made from a file (uploaded as a draft first, so its columns are read and shown exactly as a
 * job's, with the organisation's saved mapping for its header row when there is one, and can be
 * saved as one; then sent to POST /v2/monitors with the mapping chosen; the draft is discarded), a
 * monitor's change reports (newly blocked / released / changed level per re-check, the changed
 * contacts, the report as a file) and delete. Members and admins alike: monitors are files work.
 */

/** How many re-checks back a monitor's page shows (each is one GET of a job). */
const REPORTS_SHOWN = 10;
/** Changed contacts listed in the page per report; the file holds them all. */
const CHANGES_LISTED = 200;

/**
 * A monitor being made (its draft and file): kept while the page redraws (a language switch), so
 * the columns already read and picked are not lost; gone once created or cancelled.
 */
let pending: { draft: CheckJob; file: File; name: string } | null = null;

/** Signing out leaves no half-made monitor for whoever signs in next in this tab. */
export function forgetPendingMonitor(): void {
  pending = null;
}

const run = (app: App, action: () => Promise<void>) => (): void => {
  app.clearError();
  action().catch((error: unknown) => app.fail(error));
};

function monitorName(texts: Texts, monitor: Monitor): string {
  return monitor.external_ref ?? texts.t('monitor_unnamed', { date: texts.dateTime(monitor.created_at) });
}

function stateText(texts: Texts, monitor: Monitor): string {
  if (monitor.pending_check) return texts.t('monitor_checking');
  if (monitor.last_check) return texts.t('monitor_checked_at', { at: monitor.last_check.checked_at ? texts.dateTime(monitor.last_check.checked_at) : '–' });
  return texts.t('monitor_waiting');
}

/** Delete with one more question, in place (as for jobs): the buttons become confirm and cancel. */
function deleteControls(app: App, name: string, remove: () => Promise<void>): HTMLElement {
  const { texts } = app;
  const cell = h('span', { class: 'row-actions' });
  const ask = h('button', { type: 'button', class: 'link danger', 'aria-label': texts.t('delete_job', { name }) }, texts.t('delete'));
  const confirm = h('button', { type: 'button', class: 'danger' }, texts.t('delete_confirm', { name }));
  const cancel = h('button', { type: 'button', class: 'link' }, texts.t('cancel'));
  ask.addEventListener('click', () => {
    replace(cell, confirm, cancel);
    confirm.focus();
  });
  cancel.addEventListener('click', () => {
    replace(cell, ask);
    ask.focus();
  });
  confirm.addEventListener('click', run(app, remove));
  replace(cell, ask);
  return cell;
}

export function monitorsView(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const creating = h('div', {});
  const status = h('p', { role: 'status', class: 'muted', 'data-testid': 'monitor-status' });

  async function refresh() {
    const { monitors } = await app.api.listMonitors();
    const live = monitors.filter((m) => m.status === 'active');
    if (live.length === 0) {
      replace(list, h('p', { class: 'muted' }, texts.t('monitors_empty')));
      return;
    }
    replace(list, scrollingTable(texts.t('monitors_table'), h('table', {},
      h('thead', {}, h('tr', {}, ...[texts.t('monitor_name'), texts.t('monitor_state'), texts.t('jobs_actions'), texts.t('monitor_contacts'), texts.t('jobs_created')]
        .map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...live.map((monitor) => {
        const name = monitorName(texts, monitor);
        return h('tr', { 'data-monitor-id': monitor.id },
          h('td', { class: 'file-name' }, name),
          h('td', {}, stateText(texts, monitor)),
          h('td', { class: 'row-actions' },
            h('a', { href: `#monitor=${monitor.id}`, class: 'button-link', 'aria-label': texts.t('open_job', { name }) }, texts.t('open')),
            deleteControls(app, name, async () => {
              await app.api.deleteMonitor(monitor.id);
              status.textContent = texts.t('monitor_deleted', { name });
              await refresh();
            })),
          h('td', {}, texts.number(monitor.contact_count)),
          h('td', {}, texts.dateTime(monitor.created_at)));
      })))));
  }

  // Step 1: a name and a file. The file is read as a draft job, so its columns are guessed (or
  // taken from a saved mapping, docs/inbound.md "Saved column mappings on every channel") and
  // shown as for a check; nothing is checked or billed by a draft.
  const nameInput = field('monitor-name', texts.t('monitor_name'), { type: 'text', maxlength: '200', autocomplete: 'off', required: false }, texts.t('monitor_name_hint'));
  const fileInput = h('input', { id: 'monitor-file', name: 'monitor-file', type: 'file', accept: '.xlsx,.xls,.csv,.txt' });
  const reading = h('p', { class: 'muted', 'aria-live': 'polite' });
  const form = h('div', { class: 'inline-form', 'data-testid': 'monitor-create' },
    h('h3', {}, texts.t('monitor_create_title')),
    h('p', { class: 'muted' }, texts.t('monitor_create_hint')),
    ...nameInput,
    h('label', { for: 'monitor-file' }, texts.t('monitor_file')), fileInput, reading);
  fileInput.addEventListener('change', run(app, async () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    reading.textContent = texts.t('uploading');
    fileInput.disabled = true;
    try {
      const draft = await withSavedMapping(app, await app.api.upload(file));
      const name = (form.querySelector<HTMLInputElement>('#monitor-name')?.value ?? '').trim() || file.name;
      pending = { draft, file, name };
      showCreation();
      creating.querySelector<HTMLElement>('h3')?.focus();
    } finally {
      reading.textContent = '';
      fileInput.disabled = false;
      fileInput.value = '';
    }
  }));

  function showCreation() {
    if (!pending) return;
    replace(creating, creationStep(app, pending, async (monitor) => {
      pending = null;
      replace(creating);
      status.textContent = texts.t('monitor_created', { name: monitorName(texts, monitor), count: texts.number(monitor.contact_count) });
      await refresh();
    }, () => {
      pending = null;
      replace(creating);
    }));
  }

  showCreation();
  run(app, refresh)();
  return h('section', { class: 'card', 'data-testid': 'monitors' },
    heading(texts.t('monitors_title')),
    h('p', { class: 'muted' }, texts.t('monitors_intro')),
    status, list, creating, form);
}

/**
 * Step 2: the columns as read (change them, see the preview again through the draft's own
 * preview), the warnings to confirm, then the monitor is made from the same file with that
 * mapping and the draft is discarded.
 */
function creationStep(app: App, making: NonNullable<typeof pending>, created: (monitor: Monitor) => Promise<void>, cancelled: () => void): HTMLElement {
  const { texts } = app;
  const { draft, file, name } = making;
  let job = draft;
  const preview = h('div', {});
  const note = h('p', { class: 'note', 'aria-live': 'polite' });
  const updateButton = h('button', { type: 'button', class: 'secondary', hidden: true }, texts.t('update_preview'));
  const createButton = h('button', { type: 'button' }, texts.t('monitor_create'));
  const cancelButton = h('button', { type: 'button', class: 'secondary' }, texts.t('cancel'));
  const warnings = h('div', {});
  // Says which saved mapping read the columns, as the draft view does; gone once they are changed.
  const appliedNote = h('p', { class: 'note', 'data-testid': 'mapping-applied' });
  let confirmed = false;
  const editor = mappingEditor(texts, draft, () => {
    updateButton.hidden = !editor.changed();
    note.textContent = editor.changed() ? texts.t('mapping_changed') : '';
  });
  const showDraft = (next: CheckJob) => {
    job = next;
    making.draft = next;
    confirmed = false;
    const appliedName = appliedMappingOf(next.id);
    appliedNote.hidden = appliedName === null;
    appliedNote.textContent = appliedName === null ? '' : texts.t('mapping_applied', { name: appliedName });
    createButton.disabled = (next.warnings ?? []).length > 0;
    replace(warnings, warningsBox(texts, next, (checked) => {
      confirmed = checked;
      createButton.disabled = !checked;
    }));
    replace(preview, previewTable(texts, next));
  };
  showDraft(draft);
  updateButton.addEventListener('click', run(app, async () => {
    showDraft(await app.api.preview(job.id, editor.chosenMapping()));
    updateButton.hidden = true;
    note.textContent = '';
  }));
  createButton.addEventListener('click', run(app, async () => {
    if ((job.warnings ?? []).length > 0 && !confirmed) return;
    createButton.disabled = true;
    try {
      const monitor = await app.api.createMonitor(file, editor.chosenMapping(), name);
      // The draft only served to read the columns: it is discarded (the history leaves it out).
      await app.api.deleteJob(job.id).catch(() => undefined);
      await created(monitor);
    } finally {
      createButton.disabled = false;
    }
  }));
  cancelButton.addEventListener('click', run(app, async () => {
    await app.api.deleteJob(job.id);
    cancelled();
  }));
  return h('div', { class: 'inline-form', 'data-testid': 'monitor-draft' },
    h('h3', { tabindex: -1 }, texts.t('monitor_columns_title', { name })),
    appliedNote,
    warnings,
    h('dl', { class: 'facts' },
      h('dt', {}, texts.t('draft_file')), h('dd', {}, file.name),
      h('dt', {}, texts.t('monitor_contacts')), h('dd', {}, texts.number(draft.row_count))),
    h('fieldset', { class: 'mapping' },
      h('legend', {}, texts.t('mapping_title')),
      h('p', { class: 'muted' }, texts.t('monitor_mapping_hint')),
      h('div', { class: 'fields' }, ...editor.fields),
      note, updateButton,
      saveMappingForm(app, draft, () => editor.chosenMapping())),
    preview,
    h('div', { class: 'actions' }, createButton, cancelButton));
}

/** One monitor: its state, and its change reports newest first (each re-check's job). */
export function monitorView(app: App, id: string): HTMLElement {
  const { texts } = app;
  const body = h('div', { 'data-testid': 'monitor-body' });
  const title = heading(texts.t('monitor_title'));
  const refreshButton = h('button', { type: 'button', class: 'secondary' }, texts.t('monitor_refresh'));
  const element = h('section', { class: 'card', 'data-testid': 'monitor' },
    title, body,
    h('div', { class: 'actions' }, refreshButton, h('a', { href: '#monitors', class: 'button-link' }, texts.t('monitors_back'))));

  async function refresh() {
    const monitor = await app.api.getMonitor(id);
    const name = monitorName(texts, monitor);
    title.textContent = texts.t('monitor_title_named', { name });
    element.dataset.lastVersion = monitor.last_check?.list_version_id ?? '';
    element.dataset.pending = monitor.pending_check ? 'true' : 'false';
    const reports = await changeReports(app, monitor);
    replace(body,
      h('dl', { class: 'facts' },
        h('dt', {}, texts.t('monitor_contacts')), h('dd', { 'data-testid': 'monitor-contacts' }, texts.number(monitor.contact_count)),
        h('dt', {}, texts.t('monitor_state')), h('dd', { 'data-testid': 'monitor-state' }, stateText(texts, monitor)),
        h('dt', {}, texts.t('monitor_kept_until')), h('dd', {}, texts.dateTime(monitor.delete_after))),
      h('h3', {}, texts.t('monitor_reports_title')),
      h('p', { class: 'muted' }, texts.t('monitor_reports_hint')),
      reports.length === 0 ? h('p', { class: 'muted' }, texts.t('monitor_no_reports')) : null,
      ...reports,
      h('div', { class: 'actions' }, deleteControls(app, name, async () => {
        await app.api.deleteMonitor(monitor.id);
        session.openSection('monitors');
      })));
  }

  refreshButton.addEventListener('click', run(app, refresh));
  run(app, refresh)();
  return element;
}

/** The monitor's completed re-checks, newest first, walked back through each job's previous check. */
async function changeReports(app: App, monitor: Monitor): Promise<HTMLElement[]> {
  const reports: HTMLElement[] = [];
  let jobId = monitor.last_check?.job_id ?? null;
  while (jobId && reports.length < REPORTS_SHOWN) {
    let job: CheckJob;
    try {
      job = await app.api.getJob(jobId);
    } catch {
      break; // an older check past its retention: the walk ends there
    }
    if (job.status === 'done') reports.push(await changeReport(app, job, reports.length === 0));
    jobId = job.monitor?.previous_job_id ?? null;
  }
  return reports;
}

async function changeReport(app: App, job: CheckJob, latest: boolean): Promise<HTMLElement> {
  const { texts } = app;
  const changes = job.monitor?.changes ?? { newly_blocked: 0, released: 0, changed_level: 0 };
  const published = job.list_version?.published_on ?? '–';
  const when = texts.t('monitor_report_title', { published, at: job.finished_at ? texts.dateTime(job.finished_at) : '–' });
  const download = (query: Record<string, string>, label: string) => {
    const button = h('button', { type: 'button', class: 'secondary' }, label);
    button.addEventListener('click', run(app, async () => {
      const file = await app.api.resultFile(job.id, query);
      saveBlob(file.blob, file.filename);
    }));
    return button;
  };
  const total = changes.newly_blocked + changes.released + changes.changed_level;
  // The latest report lists its changed contacts; older ones are one click (the file) away.
  const listed = latest && total > 0 ? await changedContacts(app, job.id) : null;
  return h('div', { class: 'report', 'data-testid': 'change-report', 'data-job-id': job.id },
    h('h4', {}, when),
    h('dl', { class: 'facts counts' },
      h('dt', {}, texts.t('change_newly_blocked')), h('dd', { 'data-testid': 'changes-newly-blocked' }, texts.number(changes.newly_blocked)),
      h('dt', {}, texts.t('change_released')), h('dd', { 'data-testid': 'changes-released' }, texts.number(changes.released)),
      h('dt', {}, texts.t('change_changed_level')), h('dd', { 'data-testid': 'changes-changed-level' }, texts.number(changes.changed_level))),
    listed,
    h('div', { class: 'actions' },
      total > 0 ? download({ change: 'any' }, texts.t('monitor_download_changes')) : null,
      download({}, texts.t('monitor_download_all'))));
}

/** The contacts with a change (their own id, status and change), at most CHANGES_LISTED. */
async function changedContacts(app: App, jobId: string): Promise<HTMLElement> {
  const { texts } = app;
  const rows: CheckResult[] = [];
  let cursor: string | null = null;
  do {
    const page = await app.api.changedResults(jobId, cursor);
    rows.push(...page.results);
    cursor = page.next_cursor;
  } while (cursor !== null && rows.length < CHANGES_LISTED);
  return scrollingTable(texts.t('monitor_changed_contacts'), h('table', { 'data-testid': 'changed-contacts' },
    h('caption', {}, texts.t('monitor_changed_contacts')),
    h('thead', {}, h('tr', {}, ...[texts.t('field_external_id'), texts.t('monitor_change'), texts.t('preview_status'), texts.t('preview_level')]
      .map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows.slice(0, CHANGES_LISTED).map((result) => h('tr', {},
      h('td', {}, result.id ?? '–'),
      h('td', { 'data-testid': 'change' }, result.change ? texts.t(`change_${result.change}`) : '–'),
      h('td', { class: `verdict verdict-${result.status}` }, texts.t(`result_${result.status}`)),
      h('td', {}, result.match.level === null ? texts.t('level_unread') : `${result.match.level}: ${texts.level(result.match.level)}`))))));
}
