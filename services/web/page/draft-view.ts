import type { CheckJob } from './contract.ts';
import { h } from './dom.ts';
import type { Texts } from './texts.ts';
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
  const [statusHeader, levelHeader] = texts.verdictHeaders();
  const table = h('table', { class: 'preview', 'data-testid': 'preview' },
    h('caption', {}, texts.t('preview_title')),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, texts.t('preview_row')),
      h('th', { scope: 'col' }, statusHeader),
      h('th', { scope: 'col' }, levelHeader),
      ...job.columns.map((column) => h('th', { scope: 'col' }, column)))),
    h('tbody', {}, ...job.preview.map((row, index) => h('tr', {},
      h('th', { scope: 'row' }, index + 1),
      h('td', { class: `verdict verdict-${row.result.status}` }, texts.t(`result_${row.result.status}`)),
      h('td', {}, row.result.match.level === null
        ? texts.t('level_unread')
        : `${row.result.match.level}: ${row.result.match.label ?? texts.level(row.result.match.level)}`),
      ...job.columns.map((_column, i) => h('td', {}, row.cells[i] ?? ''))))));
  return scrollingTable(texts.t('preview_title'), table);
}

export function draftView(app: App, job: CheckJob): HTMLElement {
  const { texts } = app;
  const guessed = (job.column_mapping ?? {}) as Mapping;
  const selects = new Map<string, HTMLSelectElement>();
  const changedNote = h('p', { class: 'note', 'aria-live': 'polite', id: 'mapping-note' });
  const updateButton = h('button', { type: 'button', class: 'secondary', hidden: true }, texts.t('update_preview'));

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

  const onChange = () => {
    const isChanged = changed();
    updateButton.hidden = !isChanged || app.file === null;
    changedNote.textContent = !isChanged ? '' : texts.t(app.file ? 'mapping_changed' : 'mapping_changed_no_file');
  };

  const rows = texts.fields.map((field) => {
    const id = `map-${field}`;
    const current = indexOf(job.columns, guessed[field]);
    const select = h('select', { id, name: field, onchange: onChange },
      h('option', { value: '' }, texts.t('mapping_unused')),
      ...job.columns.map((column, index) => h('option', { value: index, selected: current === index }, column)));
    selects.set(field, select);
    return h('div', { class: 'field' }, h('label', { for: id }, texts.t(`field_${field}`)), select);
  });

  const startButton = h('button', { type: 'button' }, texts.t('start'));
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
    }
  };

  startButton.addEventListener('click', () => void busy(async () => {
    // A large file is read and queued before the answer comes: say so meanwhile.
    changedNote.textContent = texts.t('starting');
    app.showJob(await app.api.start(job.id, chosenMapping()));
    void app.refreshJobs();
  }));
  discardButton.addEventListener('click', () => void busy(async () => {
    await app.api.deleteJob(job.id);
    app.file = null;
    app.showUpload();
    void app.refreshJobs();
  }));
  // A new draft with the chosen columns gives a true preview; the old draft goes at once.
  updateButton.addEventListener('click', () => void busy(async () => {
    if (!app.file) return;
    const next = await app.api.upload(app.file, chosenMapping());
    await app.api.deleteJob(job.id);
    app.showJob(next);
    void app.refreshJobs();
  }));

  return h('section', { class: 'card', 'data-testid': 'draft' },
    heading(texts.t('draft_title')),
    h('dl', { class: 'facts' },
      h('dt', {}, texts.t('draft_file')), h('dd', {}, job.filename ?? ''),
      h('dt', {}, texts.t('draft_rows')), h('dd', { 'data-testid': 'row-count' }, texts.number(job.row_count))),
    h('fieldset', { class: 'mapping' },
      h('legend', {}, texts.t('mapping_title')),
      h('p', { class: 'muted' }, texts.t('mapping_hint')),
      h('div', { class: 'fields' }, ...rows)),
    changedNote,
    previewTable(texts, job),
    h('div', { class: 'actions' }, startButton, updateButton, discardButton));
}
