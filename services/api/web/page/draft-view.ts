import type { CheckJob } from './contract.ts';
import { h } from './dom.ts';
import type { Texts } from './texts.ts';
import { appliedMappingOf, saveMappingForm } from './mappings-view.ts';
import { heading, scrollingTable, type App } from './ui.ts';

type Mapping = Record<string, number | string>;

/** The draft's mapping as column indexes (a header name the caller gave is looked up). */
function indexOf(columns: string[], value: number | string | undefined): number | null {
  if (value === undefined) return null;
  if (typeof value === 'number') return value < columns.length ? value : null;
  const index = columns.indexOf(value);
  return index >= 0 ? index : null;
}

/** The preview: the verdict first (seen without scrolling on a phone), then the file's own cells. */
export function previewTable(texts: Texts, job: CheckJob): HTMLElement {
  // The page's own words in the page's language (the result file's headers are column names, and
  // the labels in the preview are in the language of the upload, not of the page now).
  const [statusHeader, levelHeader] = [texts.t('preview_status'), texts.t('preview_level')];
  const table = h('table', { class: 'preview', 'data-testid': 'preview' },
    h('caption', {}, texts.t('preview_title')),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, texts.t('preview_row')),
      h('th', { scope: 'col' }, statusHeader),
      h('th', { scope: 'col' }, levelHeader),
      ...job.columns.map((column) => h('th', { scope: 'col' }, column)))),
    h('tbody', {}, ...job.preview.map((row, index) => h('tr', {},
      h('th', { scope: 'row' }, index + 1),
      // A withheld verdict (docs/uploads.md "Previews of pay-per-list drafts") says so, in the
      // page's language (its label in the result is in the language of the upload).
      withheld(row.result)
        ? h('td', { class: 'verdict verdict-withheld' }, texts.t('result_withheld'))
        : h('td', { class: `verdict verdict-${row.result.status}` }, texts.t(`result_${row.result.status}`)),
      h('td', {}, row.result.match.level === null
        ? (withheld(row.result) ? '' : texts.t('level_unread'))
        : `${row.result.match.level}: ${texts.level(row.result.match.level)}`),
      ...job.columns.map((_column, i) => h('td', {}, row.cells[i] ?? ''))))));
  return scrollingTable(texts.t('preview_title'), table);
}

/** No level, yet a label: the verdict of a pay-per-list draft's preview, withheld until the job is paid for. */
function withheld(result: CheckJob['preview'][number]['result']): boolean {
  return result.match.level === null && result.match.label !== null;
}

/**
 * The columns as understood, one select per field (the guessed column chosen), and the mapping
 * the person has chosen. Shared by the draft of a job and the creation of a monitor.
 */
export function mappingEditor(texts: Texts, job: CheckJob, onChange: () => void) {
  const guessed = (job.column_mapping ?? {}) as Mapping;
  const selects = new Map<string, HTMLSelectElement>();
  const chosenMapping = (): Mapping => {
    const mapping: Mapping = {};
    if (guessed.header_row !== undefined) mapping.header_row = guessed.header_row;
    for (const [field, select] of selects) if (select.value !== '') mapping[field] = Number(select.value);
    return mapping;
  };
  const guessedIndexes = JSON.stringify(texts.fields.map((field) => indexOf(job.columns, guessed[field])));
  const changed = () => JSON.stringify(texts.fields.map((field) => {
    const value = selects.get(field)!.value;
    return value === '' ? null : Number(value);
  })) !== guessedIndexes;
  const fields = texts.fields.map((field) => {
    const id = `map-${field}`;
    const current = indexOf(job.columns, guessed[field]);
    const select = h('select', { id, name: field, onchange: onChange },
      h('option', { value: '' }, texts.t('mapping_unused')),
      ...job.columns.map((column, index) => h('option', { value: index, selected: current === index }, column)));
    selects.set(field, select);
    return h('div', { class: 'field' }, h('label', { for: id }, texts.t(`field_${field}`)), select);
  });
  return { fields, chosenMapping, changed };
}

/** The draft's warnings said plainly, with the box that must be ticked to go on anyway (docs/uploads.md). */
export function warningsBox(texts: Texts, job: CheckJob, onConfirm: (confirmed: boolean) => void): HTMLElement | null {
  const warnings = job.warnings ?? [];
  if (warnings.length === 0) return null;
  const confirm = h('input', { id: 'confirm-warnings', type: 'checkbox' });
  confirm.addEventListener('change', () => onConfirm(confirm.checked));
  return h('div', { class: 'warning', 'data-testid': 'draft-warnings' },
    h('h3', {}, texts.t('warnings_title')),
    h('ul', {}, ...warnings.map((w) => h('li', { 'data-code': w.code }, w.messages[texts.locale]))),
    h('div', { class: 'check' }, confirm, h('label', { for: 'confirm-warnings' }, texts.t('warnings_confirm'))));
}

export function draftView(app: App, job: CheckJob): HTMLElement {
  const { texts } = app;
  const changedNote = h('p', { class: 'note', 'aria-live': 'polite', id: 'mapping-note' });
  const updateButton = h('button', { type: 'button', class: 'secondary', hidden: true }, texts.t('update_preview'));

  const onChange = () => {
    const isChanged = editor.changed();
    updateButton.hidden = !isChanged;
    changedNote.textContent = !isChanged ? '' : texts.t('mapping_changed');
  };
  const editor = mappingEditor(texts, job, onChange);
  const { chosenMapping } = editor;
  const rows = editor.fields;

  // Warnings of the mapping (no name or address column, mostly unreadable rows): said plainly
  // at the top, and the start waits until the person says to go ahead anyway (docs/uploads.md).
  const warnings = job.warnings ?? [];
  const confirm = { checked: false };
  const warningBox = warningsBox(texts, job, (confirmed) => {
    confirm.checked = confirmed;
    startButton.disabled = !confirmed;
  });
  const startButton = h('button', { type: 'button', disabled: warnings.length > 0 }, texts.t('start'));
  const discardButton = h('button', { type: 'button', class: 'secondary' }, texts.t('discard'));
  const buttons = [startButton, discardButton, updateButton];
  const busy = async (work: () => Promise<void>) => {
    app.clearError();
    for (const button of buttons) button.disabled = true;
    try {
      await work();
    } catch (error) {
      app.fail(error);
    } finally {
      for (const button of buttons) button.disabled = false;
      startButton.disabled = warnings.length > 0 && !confirm.checked;
    }
  };

  startButton.addEventListener('click', () => void busy(async () => {
    // A large file is read and queued before the answer comes: say so meanwhile.
    changedNote.textContent = texts.t('starting');
    try {
      app.showJob(await app.api.start(job.id, chosenMapping(), warnings.length > 0 && confirm.checked));
    } catch (error) {
      // A refused start leaves no "Starting …" behind: the note says again what it said before.
      onChange();
      throw error;
    }
    void app.refreshJobs();
  }));
  discardButton.addEventListener('click', () => void busy(async () => {
    await app.api.deleteJob(job.id);
    app.showUpload();
    void app.refreshJobs();
  }));
  // The same draft read again with the chosen columns gives a true preview (and new warnings);
  // nothing is uploaded again, so it works after a reload too (docs/web.md "Decisions").
  updateButton.addEventListener('click', () => void busy(async () => {
    app.showJob(await app.api.preview(job.id, chosenMapping()));
  }));

  const appliedName = appliedMappingOf(job.id);
  return h('section', { class: 'card', 'data-testid': 'draft' },
    heading(texts.t('draft_title')),
    appliedName ? h('p', { class: 'note', 'data-testid': 'mapping-applied' }, texts.t('mapping_applied', { name: appliedName })) : null,
    warningBox,
    h('dl', { class: 'facts' },
      h('dt', {}, texts.t('draft_file')), h('dd', {}, job.filename ?? ''),
      h('dt', {}, texts.t('draft_rows')), h('dd', { 'data-testid': 'row-count' }, texts.number(job.row_count))),
    h('fieldset', { class: 'mapping' },
      h('legend', {}, texts.t('mapping_title')),
      h('p', { class: 'muted' }, texts.t('mapping_hint')),
      h('div', { class: 'fields' }, ...rows),
      // The button sits with the note that asks for it, under the columns that were changed.
      changedNote, updateButton,
      saveMappingForm(app, job, chosenMapping)),
    previewTable(texts, job),
    h('div', { class: 'actions' }, startButton, discardButton));
}
