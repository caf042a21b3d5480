import type { ConnectorInfo, DropFolderInfo, EmailSender } from './contract.ts';
import { h, replace } from './dom.ts';
import { field } from './signin-view.ts';
import { heading, scrollingTable, type App } from './ui.ts';
import type { Texts } from './texts.ts';

/**
 * The admin's channels screen (docs/inbound.md "In the page"): who may e-mail files to the
 * ingest mailbox (add, remove), and the SFTP drop folders the service polls, each with the host
 * key it is pinned to, so the customer can compare it with their own server's fingerprint, and
 * the connectors that pull a file from the customer's HTTPS address on a schedule.
 */
const run = (app: App, action: () => Promise<void>) => (): void => {
  app.clearError();
  action().catch((error: unknown) => app.fail(error));
};

function table(label: string, headers: string[], rows: HTMLElement[]): HTMLElement {
  return scrollingTable(label, h('table', {},
    h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows)));
}

export function channelsView(app: App): HTMLElement {
  return h('section', { class: 'card', 'data-testid': 'channels' },
    heading(app.texts.t('channels_title')),
    sendersBlock(app),
    foldersBlock(app),
    connectorsBlock(app));
}

function sendersBlock(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const status = h('p', { role: 'status', class: 'muted' });
  const languageSelect = h('select', { id: 'sender-locale', name: 'sender-locale' },
    h('option', { value: '' }, texts.t('sender_locale_auto')), h('option', { value: 'da' }, texts.t('language_name_da')), h('option', { value: 'en' }, texts.t('language_name_en')));
  const addButton = h('button', { type: 'submit' }, texts.t('senders_add'));
  const form = h('form', { class: 'inline-form', novalidate: true },
    h('h4', {}, texts.t('senders_add_title')),
    ...field('sender-address', texts.t('email'), { type: 'email', autocomplete: 'off', spellcheck: 'false' }),
    h('label', { for: 'sender-locale' }, texts.t('sender_locale')), languageSelect,
    addButton);
  const languageName = (locale: EmailSender['locale']) => (locale ? texts.t(`language_name_${locale}`) : texts.t('sender_locale_auto'));

  async function refresh() {
    const { data } = await app.api.listSenders();
    replace(list, data.length === 0 ? h('p', { class: 'muted' }, texts.t('senders_empty')) : table(texts.t('senders_title'),
      [texts.t('email'), texts.t('sender_locale'), texts.t('jobs_created'), texts.t('jobs_actions')],
      data.map((sender) => h('tr', { 'data-sender': sender.address },
        h('td', {}, sender.address), h('td', {}, languageName(sender.locale)), h('td', {}, texts.dateTime(sender.created_at)),
        h('td', { class: 'row-actions' }, h('button', {
          type: 'button', class: 'link danger', 'aria-label': `${texts.t('delete')}: ${sender.address}`,
          onclick: run(app, async () => {
            await app.api.removeSender(sender.address);
            status.textContent = texts.t('senders_removed', { email: sender.address });
            await refresh();
          }),
        }, texts.t('delete')))))));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(app, async () => {
      addButton.disabled = true;
      try {
        const input = form.querySelector<HTMLInputElement>('#sender-address');
        const locale = languageSelect.value === '' ? null : (languageSelect.value as 'da' | 'en');
        const sender = await app.api.addSender({ address: input?.value.trim() ?? '', locale });
        if (input) input.value = '';
        status.textContent = texts.t('senders_added', { email: sender.address });
        await refresh();
      } finally {
        addButton.disabled = false;
      }
    })();
  });
  run(app, refresh)();
  return h('div', { 'data-testid': 'senders' },
    h('h3', {}, texts.t('senders_title')), h('p', { class: 'muted' }, texts.t('senders_hint')), status, list, form);
}

/** Delete, asked once more in place (the buttons become confirm and cancel), as for jobs. */
export function removeCell(app: App, name: string, remove: () => Promise<void>): HTMLElement {
  const { texts } = app;
  const cell = h('td', { class: 'row-actions' });
  const ask = h('button', { type: 'button', class: 'link danger', 'aria-label': `${texts.t('delete')}: ${name}` }, texts.t('delete'));
  const confirm = h('button', { type: 'button', class: 'danger' }, texts.t('delete_confirm', { name }));
  const cancel = h('button', { type: 'button', class: 'link' }, texts.t('cancel'));
  ask.addEventListener('click', () => { replace(cell, confirm, cancel); confirm.focus(); });
  cancel.addEventListener('click', () => { replace(cell, ask); ask.focus(); });
  confirm.addEventListener('click', run(app, remove));
  replace(cell, ask);
  return cell;
}

/** A drop folder's or connector's last poll in words: failing since when, fine, or not polled yet. */
function pollState(texts: Texts, poll: Pick<DropFolderInfo | ConnectorInfo, 'failures' | 'last_ok_at' | 'last_error_at'>): string {
  if (poll.failures > 0) return texts.t('folder_failing', { count: poll.failures, at: poll.last_error_at ? texts.dateTime(poll.last_error_at) : '–' });
  return poll.last_ok_at ? texts.t('folder_ok', { at: texts.dateTime(poll.last_ok_at) }) : texts.t('folder_not_polled');
}

function connectorsBlock(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const status = h('p', { role: 'status', class: 'muted' });
  async function refresh() {
    const { data } = await app.api.listConnectors();
    replace(list, data.length === 0 ? h('p', { class: 'muted' }, texts.t('connectors_empty')) : table(texts.t('connectors_title'),
      [texts.t('connector_url'), texts.t('connector_every'), texts.t('monitor_state'), texts.t('jobs_actions'), texts.t('folder_use')],
      data.map((c) => h('tr', { 'data-connector-id': c.id },
        h('td', { class: 'file-name' }, c.url),
        h('td', {}, texts.t('connector_minutes', { minutes: texts.number(Math.round(c.interval_seconds / 60)) })),
        h('td', {}, pollState(texts, c)),
        removeCell(app, c.url, async () => {
          await app.api.removeConnector(c.id);
          status.textContent = texts.t('connector_removed', { url: c.url });
          await refresh();
        }),
        h('td', {}, c.target === 'monitor' ? texts.t('folder_feeds_monitor') : texts.t(c.mapping === 'saved' ? 'folder_mapping_saved' : 'folder_mapping_guessed'))))));
  }
  const form = addConnectorForm(app, async (url) => {
    status.textContent = texts.t('connector_added', { url });
    await refresh();
  });
  run(app, refresh)();
  return h('div', { 'data-testid': 'connectors' },
    h('h3', {}, texts.t('connectors_title')), h('p', { class: 'muted' }, texts.t('connectors_hint')), status, list, form);
}

function foldersBlock(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const status = h('p', { role: 'status', class: 'muted' });
  async function refresh() {
    const { data } = await app.api.listDropFolders();
    replace(list, data.length === 0 ? h('p', { class: 'muted' }, texts.t('folders_empty')) : table(texts.t('folders_title'),
      [texts.t('folder_server'), texts.t('folder_host_key'), texts.t('monitor_state'), texts.t('jobs_actions'), texts.t('folder_use')],
      data.map((folder) => {
        const server = `${folder.username}@${folder.host}:${folder.port}${folder.path}`;
        const cell = removeCell(app, server, async () => {
          await app.api.removeDropFolder(folder.id);
          status.textContent = texts.t('folder_removed', { server });
          await refresh();
        });
        return h('tr', { 'data-folder-id': folder.id },
          h('td', { class: 'file-name' }, server),
          h('td', { class: 'file-name' }, h('code', { 'data-testid': 'host-key' }, folder.host_key_sha256)),
          h('td', {}, pollState(texts, folder)),
          cell,
          h('td', {}, folder.monitor_id ? texts.t('folder_feeds_monitor') : texts.t(folder.mapping === 'saved' ? 'folder_mapping_saved' : 'folder_mapping_guessed')));
      })));
  }
  const form = addFolderForm(app, async (server, key) => {
    status.textContent = texts.t('folder_added', { server, key });
    await refresh();
  });
  run(app, refresh)();
  return h('div', { 'data-testid': 'drop-folders' },
    h('h3', {}, texts.t('folders_title')), h('p', { class: 'muted' }, texts.t('folders_hint')), status, list, form);
}

/** A labelled multi-line field (a key is pasted here; never spell-checked or filled in). */
function textArea(id: string, label: string, hint?: string): HTMLElement[] {
  const area = h('textarea', { id, name: id, rows: 3, spellcheck: 'false', autocomplete: 'off', ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) });
  return [h('label', { for: id }, label), area, ...(hint ? [h('p', { id: `${id}-hint`, class: 'muted' }, hint)] : [])];
}

/** The value of a field of `form`, trimmed; undefined when empty (the API takes an absent field, not ''). */
function valueOf(form: HTMLElement, id: string): string | undefined {
  const value = form.querySelector<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(`#${id}`)?.value.trim() ?? '';
  return value === '' ? undefined : value;
}

/** Sends a form once (its button off meanwhile); a refusal is shown by app.fail, the form keeps what was typed. */
function onSubmit(app: App, form: HTMLFormElement, button: HTMLButtonElement, action: () => Promise<void>): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(app, async () => {
      button.disabled = true;
      try {
        await action();
      } finally {
        button.disabled = false;
      }
    })();
  });
}

/**
 * A new drop folder (docs/inbound.md "In the page"): where, the server's public key to pin, and
 * the login. The API connects once before it stores anything, so a wrong key or login is said here.
 */
function addFolderForm(app: App, added: (server: string, key: string) => Promise<void>): HTMLElement {
  const { texts } = app;
  const button = h('button', { type: 'submit' }, texts.t('folders_add'));
  const languageSelect = h('select', { id: 'folder-locale', name: 'folder-locale' }, h('option', { value: 'da' }, 'Dansk'), h('option', { value: 'en' }, 'English'));
  const form = h('form', { class: 'inline-form', novalidate: true, 'data-testid': 'add-folder' },
    h('h4', {}, texts.t('folders_add_title')),
    h('p', { class: 'muted' }, texts.t('folders_add_hint')),
    ...field('folder-host', texts.t('folder_host'), { type: 'text', autocomplete: 'off', spellcheck: 'false' }),
    ...field('folder-port', texts.t('folder_port'), { type: 'number', min: '1', max: '65535', value: '22', inputmode: 'numeric' }),
    ...field('folder-user', texts.t('folder_user'), { type: 'text', autocomplete: 'off', spellcheck: 'false' }),
    ...field('folder-path', texts.t('folder_path'), { type: 'text', value: '/', autocomplete: 'off', spellcheck: 'false' }),
    ...textArea('folder-public-key', texts.t('folder_public_key'), texts.t('folder_public_key_hint')),
    ...field('folder-password', texts.t('folder_password'), { type: 'password', autocomplete: 'new-password', required: false }),
    ...textArea('folder-private-key', texts.t('folder_private_key')),
    h('label', { for: 'folder-locale' }, texts.t('folder_locale')), languageSelect,
    button);
  onSubmit(app, form, button, async () => {
    const port = Number(valueOf(form, 'folder-port') ?? '22');
    const password = form.querySelector<HTMLInputElement>('#folder-password')?.value ?? '';
    const folder = await app.api.addDropFolder({
      host: valueOf(form, 'folder-host') ?? '', port: Number.isInteger(port) ? port : 0, username: valueOf(form, 'folder-user') ?? '',
      path: valueOf(form, 'folder-path') ?? '/', host_public_key: valueOf(form, 'folder-public-key') ?? '',
      ...(password !== '' ? { password } : {}),
      ...(valueOf(form, 'folder-private-key') ? { private_key: form.querySelector<HTMLTextAreaElement>('#folder-private-key')!.value } : {}),
      locale: languageSelect.value === 'en' ? 'en' : 'da',
    });
    // The secrets leave the page once they are stored.
    for (const id of ['folder-password', 'folder-private-key']) form.querySelector<HTMLInputElement>(`#${id}`)!.value = '';
    await added(`${folder.username}@${folder.host}:${folder.port}${folder.path}`, folder.host_key_sha256);
  });
  return form;
}

/** A new connector: the file's https address, how often, and an optional header to sign in with. */
function addConnectorForm(app: App, added: (url: string) => Promise<void>): HTMLElement {
  const { texts } = app;
  const button = h('button', { type: 'submit' }, texts.t('connectors_add'));
  const form = h('form', { class: 'inline-form', novalidate: true, 'data-testid': 'add-connector' },
    h('h4', {}, texts.t('connectors_add_title')),
    ...field('connector-url', texts.t('connector_url_label'), { type: 'url', autocomplete: 'off', spellcheck: 'false' }),
    ...field('connector-interval', texts.t('connector_interval'), { type: 'number', min: '1', value: '60', inputmode: 'numeric' }),
    ...field('connector-header-name', texts.t('connector_header_name'), { type: 'text', autocomplete: 'off', spellcheck: 'false', required: false }),
    ...field('connector-header-value', texts.t('connector_header_value'), { type: 'password', autocomplete: 'new-password', required: false }),
    button);
  onSubmit(app, form, button, async () => {
    const minutes = Number(valueOf(form, 'connector-interval') ?? '');
    const headerName = valueOf(form, 'connector-header-name');
    const headerValue = valueOf(form, 'connector-header-value');
    const connector = await app.api.addConnector({
      url: valueOf(form, 'connector-url') ?? '', interval_minutes: Number.isInteger(minutes) ? minutes : 0,
      ...(headerName ? { auth_header_name: headerName } : {}), ...(headerValue ? { auth_header_value: headerValue } : {}),
      locale: texts.locale,
    });
    form.querySelector<HTMLInputElement>('#connector-header-value')!.value = '';
    await added(connector.url);
  });
  return form;
}
