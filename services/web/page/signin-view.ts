import { h } from './dom.ts';
import { session } from './session.ts';
import { heading, type App } from './ui.ts';

/** The key is checked by listing jobs with it: the API's own 401 message is what a wrong key shows. */
export function signInView(app: App, onSignedIn: () => void): HTMLElement {
  const { texts } = app;
  const input = h('input', {
    id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false',
    required: true, 'aria-describedby': 'api-key-hint',
  });
  const button = h('button', { type: 'submit' }, texts.t('sign_in'));
  const form = h('form', { class: 'card', novalidate: true },
    heading(texts.t('sign_in_title')),
    h('p', {}, texts.t('app_intro')),
    h('label', { for: 'api-key' }, texts.t('api_key')),
    input,
    h('p', { id: 'api-key-hint', class: 'muted' }, texts.t('api_key_hint')),
    button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    app.clearError();
    const key = input.value.trim();
    button.disabled = true;
    try {
      await app.api.listJobs(1, key);
      session.signIn(key);
      input.value = '';
      onSignedIn();
    } catch (error) {
      app.fail(error);
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
