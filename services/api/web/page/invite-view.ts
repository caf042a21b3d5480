import type { Invitation } from './contract.ts';
import { h, replace } from './dom.ts';
import { session } from './session.ts';
import { field } from './signin-view.ts';
import { heading, type App } from './ui.ts';

/**
 * An invitation link (`#invite=<token>`, docs/people.md "Invitations"): who it is for, the secret
 * to add to an authenticator app (typed in, or opened as an otpauth link on a phone), a password
 * and a first code. Accepted, the person signs in as anyone else does.
 */
export function inviteView(app: App, token: string, onDone: () => void): HTMLElement {
  const { texts } = app;
  const element = h('section', { class: 'card narrow', 'data-testid': 'invitation' }, heading(texts.t('invite_title')));

  function form(invitation: Invitation): HTMLElement {
    const grouped = invitation.totp_secret.match(/.{1,4}/g)?.join(' ') ?? invitation.totp_secret;
    const button = h('button', { type: 'submit' }, texts.t('invite_accept'));
    const body = h('form', { novalidate: true },
      h('p', {}, texts.t('invite_intro', { organisation: invitation.organisation, email: invitation.email })),
      h('h3', {}, texts.t('invite_step_app')),
      h('p', {}, texts.t('invite_app_hint')),
      h('p', { class: 'secret', 'data-testid': 'totp-secret', 'aria-label': texts.t('invite_secret') }, grouped),
      h('p', {}, h('a', { href: invitation.otpauth_uri }, texts.t('invite_open_app'))),
      h('h3', {}, texts.t('invite_step_password')),
      ...field('new-password', texts.t('password'), { type: 'password', autocomplete: 'new-password', minlength: '12' }, texts.t('password_hint')),
      ...field('first-code', texts.t('totp_code'), { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: '6' }, texts.t('totp_code_hint')),
      button);
    body.addEventListener('submit', async (event) => {
      event.preventDefault();
      app.clearError();
      button.disabled = true;
      try {
        await app.api.acceptInvitation(token, {
          password: body.querySelector<HTMLInputElement>('#new-password')?.value ?? '',
          code: (body.querySelector<HTMLInputElement>('#first-code')?.value ?? '').trim(),
        });
        session.forgetInvite();
        replace(element, heading(texts.t('invite_done_title')), h('p', { role: 'status' }, texts.t('invite_done')),
          h('button', { type: 'button', onclick: () => onDone() }, texts.t('sign_in')));
        element.querySelector<HTMLElement>('.view-title')?.focus();
      } catch (error) {
        app.fail(error);
      } finally {
        button.disabled = false;
      }
    });
    return body;
  }

  app.api.invitation(token).then(
    (invitation) => element.append(form(invitation)),
    (error: unknown) => {
      app.fail(error);
      element.append(h('button', { type: 'button', onclick: () => { session.forgetInvite(); onDone(); } }, texts.t('sign_in')));
    },
  );
  return element;
}
