import type { ApiKeyInfo, PortalUser, Role } from './contract.ts';
import { h, replace } from './dom.ts';
import { session } from './session.ts';
import { fillLoaded } from './form-memory.ts';
import { field } from './signin-view.ts';
import { heading, scrollingTable, type App } from './ui.ts';

/**
 * The admin's screens (docs/people.md "Roles"): users, API keys, settings and the audit log. A
 * member never sees them in the navigation, and the API refuses them a member anyway (403).
 */
function table(label: string, headers: string[], rows: HTMLElement[]): HTMLElement {
  return scrollingTable(label, h('table', {},
    h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows)));
}

/** A handler that runs `action` and shows its refusal (a listener returns nothing). */
const run = (app: App, action: () => Promise<void>) => (): void => {
  app.clearError();
  action().catch((error: unknown) => app.fail(error));
};

export function usersView(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const roleName = (role: Role) => texts.t(`role_${role}`);
  const roleSelect = h('select', { id: 'invite-role', name: 'invite-role' },
    h('option', { value: 'member' }, roleName('member')), h('option', { value: 'admin' }, roleName('admin')));
  const sendButton = h('button', { type: 'submit' }, texts.t('users_invite'));
  const form = h('form', { class: 'inline-form', novalidate: true },
    h('h3', {}, texts.t('users_invite_title')),
    ...field('invite-email', texts.t('email'), { type: 'email', autocomplete: 'off', spellcheck: 'false' }),
    h('label', { for: 'invite-role' }, texts.t('users_role')), roleSelect,
    sendButton);
  const status = h('p', { role: 'status', class: 'muted' });

  async function refresh() {
    const { data } = await app.api.listUsers();
    const me = session.info()?.user.id;
    const rows = data.filter((u) => u.status !== 'removed').map((user: PortalUser) => {
      const other: Role = user.role === 'admin' ? 'member' : 'admin';
      const actions = h('td', { class: 'row-actions' });
      if (user.id !== me) {
        actions.append(
          // Each name starts with the visible text (what a voice-control user says), then whose it is.
          h('button', { type: 'button', class: 'link', 'aria-label': `${texts.t('users_make_short', { role: roleName(other) })}: ${user.email}`,
            onclick: run(app, async () => { await app.api.setRole(user.id, other); await refresh(); }) }, texts.t('users_make_short', { role: roleName(other) })),
          h('button', { type: 'button', class: 'link danger', 'aria-label': `${texts.t('delete')}: ${user.email}`,
            onclick: run(app, async () => { await app.api.removeUser(user.id); await refresh(); }) }, texts.t('delete')),
        );
      }
      return h('tr', { 'data-user': user.email },
        h('td', {}, user.email), h('td', {}, roleName(user.role)), h('td', {}, texts.t(`user_${user.status}`)), actions);
    });
    replace(list, table(texts.t('users_title'), [texts.t('email'), texts.t('users_role'), texts.t('jobs_status'), texts.t('jobs_actions')], rows));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(app, async () => {
      sendButton.disabled = true;
      try {
        const input = form.querySelector<HTMLInputElement>('#invite-email');
        const user = await app.api.inviteUser({ email: input?.value.trim() ?? '', role: roleSelect.value as Role });
        if (input) input.value = '';
        status.textContent = texts.t('users_invited', { email: user.email });
        await refresh();
      } finally {
        sendButton.disabled = false;
      }
    })();
  });
  run(app, refresh)();
  return h('section', { class: 'card', 'data-testid': 'users' }, heading(texts.t('users_title')), list, form, status);
}

export function keysView(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  const shown = h('div', { 'aria-live': 'polite' });
  const modeSelect = h('select', { id: 'key-mode', name: 'key-mode' },
    h('option', { value: 'live' }, texts.t('key_mode_live')), h('option', { value: 'test' }, texts.t('key_mode_test')));
  const createButton = h('button', { type: 'submit' }, texts.t('keys_create'));
  const form = h('form', { class: 'inline-form', novalidate: true },
    h('h3', {}, texts.t('keys_create_title')),
    ...field('key-label', texts.t('keys_label'), { type: 'text', maxlength: '100', autocomplete: 'off' }, texts.t('keys_label_hint')),
    h('label', { for: 'key-mode' }, texts.t('keys_mode')), modeSelect,
    createButton);

  async function refresh() {
    const { data } = await app.api.listKeys();
    const rows = data.map((key: ApiKeyInfo) => h('tr', { 'data-key': key.id },
      h('td', {}, key.label || '–'),
      h('td', {}, h('code', {}, `${key.prefix}…`)),
      h('td', {}, texts.t(`key_mode_${key.mode}`)),
      h('td', {}, texts.dateTime(key.created_at)),
      h('td', {}, key.revoked_at ? texts.t('keys_revoked_at', { at: texts.dateTime(key.revoked_at) }) : texts.t('keys_active')),
      h('td', { class: 'row-actions' }, key.revoked_at ? null : h('button', {
        type: 'button', class: 'link danger', 'aria-label': texts.t('keys_revoke_named', { label: key.label || key.prefix }),
        onclick: run(app, async () => { await app.api.revokeKey(key.id); await refresh(); }),
      }, texts.t('keys_revoke')))));
    replace(list, table(texts.t('keys_title'), [texts.t('keys_label'), texts.t('keys_prefix'), texts.t('keys_mode'), texts.t('jobs_created'), texts.t('jobs_status'), texts.t('jobs_actions')], rows));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(app, async () => {
      createButton.disabled = true;
      try {
        const label = form.querySelector<HTMLInputElement>('#key-label');
        const created = await app.api.createKey({ label: label?.value.trim() ?? '', mode: modeSelect.value as 'live' | 'test' });
        if (label) label.value = '';
        replace(shown, h('div', { class: 'notice' },
          h('p', {}, texts.t('keys_shown_once')),
          h('p', {}, h('code', { class: 'secret', 'data-testid': 'new-key' }, created.key))));
        await refresh();
      } finally {
        createButton.disabled = false;
      }
    })();
  });
  run(app, refresh)();
  return h('section', { class: 'card', 'data-testid': 'keys' }, heading(texts.t('keys_title')), shown, list, form);
}

export function settingsView(app: App): HTMLElement {
  const { texts } = app;
  const stop = h('select', { id: 'stop-level', name: 'stop-level', 'aria-describedby': 'stop-level-hint' },
    ...[1, 2, 3, 4, 5].map((level) => h('option', { value: String(level) }, `${level} – ${texts.level(level)}`)));
  const retention = h('input', { id: 'retention', name: 'retention', type: 'number', min: '1', max: '90', required: true, 'aria-describedby': 'retention-hint' });
  const save = h('button', { type: 'submit' }, texts.t('settings_save'));
  const status = h('p', { role: 'status', class: 'muted' });
  const form = h('form', { novalidate: true },
    h('label', { for: 'stop-level' }, texts.t('settings_stop_level')), stop,
    h('p', { id: 'stop-level-hint', class: 'muted' }, texts.t('settings_stop_level_hint')),
    h('label', { for: 'retention' }, texts.t('settings_retention')), retention,
    h('p', { id: 'retention-hint', class: 'muted' }, texts.t('settings_retention_hint')),
    save, status);
  run(app, async () => {
    const settings = await app.api.settings();
    // What the person had typed before a language switch stays (docs/web.md "Language switch keeps what was typed").
    fillLoaded(stop, String(settings.stop_level));
    fillLoaded(retention, String(settings.retention_days));
  })();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(app, async () => {
      status.textContent = '';
      const saved = await app.api.saveSettings({ stop_level: Number(stop.value), retention_days: Number(retention.value) });
      retention.value = String(saved.retention_days);
      status.textContent = texts.t('settings_saved');
    })();
  });
  return h('section', { class: 'card', 'data-testid': 'settings' }, heading(texts.t('settings_title')), form);
}

export function auditView(app: App): HTMLElement {
  const { texts } = app;
  const list = h('div', {});
  run(app, async () => {
    const { data } = await app.api.auditLog(100);
    const actionText = (action: string) => {
      const key = `audit_${action.replace(/[^A-Za-z_]/g, '_')}`;
      try {
        return texts.t(key);
      } catch {
        return action;
      }
    };
    replace(list, table(texts.t('audit_title'), [texts.t('audit_when'), texts.t('audit_who'), texts.t('audit_what'), texts.t('audit_target')],
      data.map((e) => h('tr', {},
        h('td', {}, texts.dateTime(e.at)), h('td', {}, e.actor ?? e.actor_id), h('td', {}, actionText(e.action)), h('td', {}, e.target ? h('code', {}, e.target.slice(0, 8)) : '–')))));
  })();
  return h('section', { class: 'card', 'data-testid': 'audit' }, heading(texts.t('audit_title')), h('p', { class: 'muted' }, texts.t('audit_hint')), list);
}
