import { h } from './dom.ts';
import { session } from './session.ts';
import { heading, type App } from './ui.ts';

/** A labelled input with its hint, for the sign-in and invitation forms. */
export function field(id: string, label: string, props: Record<string, string | boolean>, hint?: string): HTMLElement[] {
  const input = h('input', { id, name: id, required: true, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}), ...props });
  const parts: HTMLElement[] = [h('label', { for: id }, label), input];
  if (hint) parts.push(h('p', { id: `${id}-hint`, class: 'muted' }, hint));
  return parts;
}

/**
 * E-mail, password and the code from the authenticator app (docs/people.md). A refusal shows the
 * API's own sentence, written for a person; the form keeps what was typed except the code.
 */
export function signInView(app: App, onSignedIn: () => void): HTMLElement {
  const { texts } = app;
  const button = h('button', { type: 'submit' }, texts.t('sign_in'));
  const testMode = h('input', { id: 'test-mode', name: 'test-mode', type: 'checkbox' });
  const form = h('form', { class: 'card narrow', novalidate: true, 'data-testid': 'sign-in' },
    heading(texts.t('sign_in_title')),
    h('p', {}, texts.t('app_intro')),
    ...field('email', texts.t('email'), { type: 'email', autocomplete: 'username', spellcheck: 'false' }),
    ...field('password', texts.t('password'), { type: 'password', autocomplete: 'current-password' }),
    // Six digits, or a recovery code (letters and dashes): no numeric-only keyboard or pattern.
    ...field('code', texts.t('totp_code'), { type: 'text', autocomplete: 'one-time-code', spellcheck: 'false', maxlength: '24' }, texts.t('totp_code_hint')),
    h('div', { class: 'check' }, testMode, h('label', { for: 'test-mode' }, texts.t('test_mode'))),
    button);
  const value = (id: string) => (form.querySelector<HTMLInputElement>(`#${id}`)?.value ?? '').trim();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    app.clearError();
    button.disabled = true;
    try {
      const info = await app.api.signIn({
        email: value('email'), password: form.querySelector<HTMLInputElement>('#password')?.value ?? '', code: value('code'),
        mode: testMode.checked ? 'test' : 'live',
      });
      session.set(info);
      onSignedIn();
    } catch (error) {
      app.fail(error);
      const code = form.querySelector<HTMLInputElement>('#code');
      if (code) code.value = '';
      form.querySelector<HTMLInputElement>('#password')?.focus();
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
