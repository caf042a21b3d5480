import { removeCell } from './channels-view.ts';
import { MAPPING_CHANNELS, type CheckJob, type MappingChannel, type SavedColumnMapping } from './contract.ts';
import { h, replace } from './dom.ts';
import { heading, scrollingTable, type App } from './ui.ts';

/**
 * Saved column mappings (docs/web.md "Saved column mappings"): a file whose header row matches
 * one gets its columns at upload, and the draft says so; the organisation's list, with delete.
 */

/** Drafts (by id) whose columns came from a saved mapping, and its name: the draft view says so, also after a language switch. */
const applied = new Map<string, string>();

export function appliedMappingOf(jobId: string): string | null {
  return applied.get(jobId) ?? null;
}

/**
 * A fresh draft with the saved mapping of its header row, when there is one: the same draft read
 * again with those columns (a true preview, as "Update preview" gives), else the draft as it came.
 */
export async function withSavedMapping(app: App, job: CheckJob): Promise<CheckJob> {
  if (job.status !== 'draft') return job;
  const [saved] = (await app.api.listMappings(job.id)).data;
  if (!saved) return job;
  const previewed = await app.api.preview(job.id, saved.column_mapping);
  applied.set(previewed.id, saved.name);
  return previewed;
}

export function savedMappingsView(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const status = h('p', { role: 'status', class: 'muted' });
  async function refresh() {
    const { data } = await app.api.listMappings();
    replace(list, data.length === 0 ? h('p', { class: 'muted' }, texts.t('mappings_empty')) : scrollingTable(texts.t('mappings_title'), h('table', {},
      h('thead', {}, h('tr', {}, ...[texts.t('mappings_name'), texts.t('jobs_actions'), texts.t('mappings_columns'), texts.t('mappings_channels'), texts.t('jobs_created')]
        .map((text) => h('th', { scope: 'col' }, text)))),
      h('tbody', {}, ...data.map((mapping: SavedColumnMapping) => h('tr', { 'data-mapping-id': mapping.id },
        h('td', {}, mapping.name),
        removeCell(app, mapping.name, async () => {
          await app.api.removeMapping(mapping.id);
          status.textContent = texts.t('mapping_removed', { name: mapping.name });
          await refresh();
        }),
        h('td', { class: 'file-name' }, mapping.columns.join(', ')),
        h('td', {}, channelsText(app, mapping.channels)),
        h('td', {}, texts.dateTime(mapping.created_at))))))));
  }
  refresh().catch((error: unknown) => app.fail(error));
  return h('section', { class: 'card', 'data-testid': 'saved-mappings' },
    heading(texts.t('mappings_title')), h('p', { class: 'muted' }, texts.t('mappings_hint')), status, list);
}

/** Under a draft's columns: save them, named, for later files with the same header row. */
export function saveMappingForm(app: App, job: CheckJob, chosenMapping: () => Record<string, number | string>): HTMLElement {
  const { texts } = app;
  const suggested = appliedMappingOf(job.id) ?? (job.filename ?? '').replace(/\.[^.]*$/, '');
  const name = h('input', { id: 'mapping-name', name: 'mapping-name', type: 'text', value: suggested, maxlength: 80, autocomplete: 'off' });
  // Every channel unless the person keeps it to one (docs/inbound.md "Saved column mappings on every channel").
  const channels = h('select', { id: 'mapping-channels', name: 'mapping-channels' },
    h('option', { value: '' }, texts.t('mapping_channels_all')),
    ...MAPPING_CHANNELS.map((channel) => h('option', { value: channel }, channelsText(app, [channel]))));
  const status = h('p', { role: 'status', class: 'muted', 'data-testid': 'mapping-saved' });
  const button = h('button', { type: 'button', class: 'secondary' }, texts.t('mapping_save'));
  button.addEventListener('click', () => {
    app.clearError();
    button.disabled = true;
    app.api.saveMapping({ name: name.value.trim(), job_id: job.id, column_mapping: chosenMapping(), ...(channels.value ? { channels: [channels.value] } : {}) })
      .then((saved) => {
        status.textContent = texts.t('mapping_saved', { name: saved.name });
      }, (error: unknown) => app.fail(error))
      .finally(() => {
        button.disabled = false;
      });
  });
  return h('div', { class: 'save-mapping' },
    h('label', { for: 'mapping-name' }, texts.t('mapping_save_label')), name,
    h('label', { for: 'mapping-channels' }, texts.t('mappings_channels')), channels, button, status);
}

/** "All channels", or "Only SFTP" (the channel names of the history's source filter). */
function channelsText(app: App, channels: readonly MappingChannel[] | null): string {
  if (!channels) return app.texts.t('mapping_channels_all');
  return channels.map((channel) => app.texts.t('mapping_channels_only', { channel: app.texts.t(`source_${channel}`) })).join(', ');
}
