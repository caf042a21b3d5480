import { h } from './dom.ts';
import { withSavedMapping } from './mappings-view.ts';
import { heading, type App } from './ui.ts';

/** Drag and drop onto the zone, or the file picker inside it (the keyboard's way in). */
export function uploadView(app: App): HTMLElement {
  const { texts } = app;
  const busy = h('p', { class: 'muted', 'aria-live': 'polite', id: 'upload-status' });
  const input = h('input', { id: 'file', name: 'file', type: 'file', accept: '.xlsx,.xls,.csv,.txt' });
  const zone = h('div', { class: 'dropzone', id: 'dropzone' },
    h('p', { class: 'dropzone-text' }, texts.t('upload_drop')),
    h('label', { for: 'file', class: 'file-label' }, texts.t('upload_choose')),
    input);

  async function upload(file: File | undefined) {
    if (!file) return;
    app.clearError();
    busy.textContent = texts.t('uploading');
    zone.classList.add('busy');
    input.disabled = true;
    try {
      // A file with the header row of a saved mapping gets its columns (and the draft says so).
      const job = await withSavedMapping(app, await app.api.upload(file));
      app.showJob(job);
      void app.refreshJobs();
    } catch (error) {
      busy.textContent = '';
      app.fail(error);
    } finally {
      zone.classList.remove('busy');
      input.disabled = false;
      input.value = '';
    }
  }

  input.addEventListener('change', () => void upload(input.files?.[0]));
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    void upload(event.dataTransfer?.files[0]);
  });
  return h('section', { class: 'card', 'aria-labelledby': 'upload-title' },
    Object.assign(heading(texts.t('upload_title')), { id: 'upload-title' }), zone, busy);
}
