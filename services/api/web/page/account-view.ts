import { h, replace } from './dom.ts';
import { heading, type App } from './ui.ts';

/**
 * The person's own account (`#account`, every person; docs/people.md "Recovery codes"): how many
 * recovery codes are left, and ten new ones, shown this once, for the day the phone is gone.
 */
export function accountView(app: App): HTMLElement {
  const { texts } = app;
  const left = h('p', { 'data-testid': 'recovery-left' });
  const shown = h('div', { 'aria-live': 'polite' });
  const make = h('button', { type: 'button' }, texts.t('recovery_make'));
  const run = (action: () => Promise<void>) => {
    app.clearError();
    action().catch((error: unknown) => app.fail(error));
  };
  const showLeft = (remaining: number) => {
    left.textContent = remaining === 0 ? texts.t('recovery_none') : texts.t('recovery_left', { count: remaining });
  };
  make.addEventListener('click', () => run(async () => {
    make.disabled = true;
    try {
      const { codes = [], remaining } = await app.api.newRecoveryCodes();
      showLeft(remaining);
      replace(shown, h('div', { class: 'notice' },
        h('p', {}, texts.t('recovery_shown_once')),
        h('ol', { class: 'codes', 'data-testid': 'recovery-codes' }, ...codes.map((code) => h('li', {}, h('code', { class: 'secret' }, code))))));
    } finally {
      make.disabled = false;
    }
  }));
  run(async () => showLeft((await app.api.recoveryCodes()).remaining));
  return h('section', { class: 'card', 'data-testid': 'account' },
    heading(texts.t('account_title')),
    h('h3', {}, texts.t('recovery_title')),
    h('p', { class: 'muted' }, texts.t('recovery_hint')),
    left, shown, h('div', { class: 'actions' }, make));
}
