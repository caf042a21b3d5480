import { ApiFailure, createApi } from './api.ts';
import { auditView, keysView, settingsView, usersView } from './admin-views.ts';
import { accountView } from './account-view.ts';
import { channelsView } from './channels-view.ts';
import { inviteView } from './invite-view.ts';
import type { CheckJob, Locale, PageTexts } from './contract.ts';
import { byId, h, replace } from './dom.ts';
import { draftView } from './draft-view.ts';
import { keepForms, restoreForms } from './form-memory.ts';
import { jobView, type JobView } from './job-view.ts';
import { jobsView } from './jobs-view.ts';
import { forgetPendingMonitor, monitorsView, monitorView } from './monitors-view.ts';
import { MEMBER_SECTIONS, session, type Section } from './session.ts';
import { signInView } from './signin-view.ts';
import { initialLocale, loadTexts, rememberLocale, textsFor } from './texts.ts';
import { clearError, errorIn, focusHeading, renderError, type App } from './ui.ts';
import { uploadView } from './upload-view.ts';
import { savedMappingsView } from './mappings-view.ts';

/** Statuses that still change: the page asks the API again every second. */
const MOVING = new Set(['queued', 'running', 'awaiting_payment']);
const POLL_MS = 1000;

const all: PageTexts = await loadTexts();
let locale: Locale = initialLocale();
let texts = textsFor(all, locale);
const api = createApi(session.csrf, () => locale);

let shown: { job: CheckJob; view: JobView | null } | null = null;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let jobs: ReturnType<typeof jobsView> | null = null;

const app: App = {
  api,
  get texts() {
    return texts;
  },
  showJob(job) {
    showJob(job, true);
  },
  showUpload() {
    stopPolling();
    shown = null;
    session.openJob(null);
    const view = byId('view');
    replace(view, uploadView(app), savedMappingsView(app));
    focusHeading(view);
  },
  async refreshJobs() {
    try {
      await jobs?.refresh();
    } catch (error) {
      app.fail(error);
    }
  },
  fail(error) {
    // An ended session (signed out elsewhere, expired, role changed): back to signing in.
    if (error instanceof ApiFailure && error.problem.status === 401 && session.info()) {
      session.set(null);
      void render().then(() => renderError(texts, error));
      return;
    }
    renderError(texts, error);
  },
  clearError,
};

function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = undefined;
}

function showJob(job: CheckJob, focus: boolean) {
  stopPolling();
  session.openJob(job.id);
  const view = byId('view');
  if (job.status === 'draft') {
    shown = { job, view: null };
    replace(view, draftView(app, job));
  } else {
    const rendered = jobView(app, job);
    shown = { job, view: rendered };
    replace(view, rendered.element);
    if (MOVING.has(job.status)) pollTimer = setTimeout(() => void poll(job.id), POLL_MS);
  }
  if (focus) focusHeading(view);
}

async function poll(id: string) {
  try {
    const next = await api.getJob(id);
    if (shown?.job.id !== id) return;
    if (next.status !== shown.job.status) {
      showJob(next, true);
      void app.refreshJobs();
      return;
    }
    shown = { job: next, view: shown.view };
    shown.view?.update(next);
  } catch (error) {
    app.fail(error);
  }
  if (shown?.job.id === id && MOVING.has(shown.job.status)) pollTimer = setTimeout(() => void poll(id), POLL_MS);
}

function header(): HTMLElement {
  const languages = (['da', 'en'] as const).map((code) => {
    const button = h('button', { type: 'button', class: 'lang', lang: code, 'aria-pressed': String(code === locale) },
      texts.t(`language_name_${code}`));
    button.addEventListener('click', () => {
      if (code === locale) return;
      locale = code;
      rememberLocale(code);
      texts = textsFor(all, locale);
      // A shown error stays, in the new language (render() clears the alert region); so does
      // what was typed in any form, and the focus stays on this toggle (docs/web.md "Language
      // switch keeps what was typed").
      const kept = errorIn(texts);
      const typed = keepForms(byId('view'), byId('jobs'));
      void render().then(() => {
        restoreForms(typed, byId('view'), byId('jobs'));
        // The history's list was asked for before its filters were given back: asked again with them.
        if ([...typed.fields.keys()].some((id) => id.startsWith('filter-'))) void app.refreshJobs();
        if (kept) renderError(texts, kept);
        byId('header').querySelector<HTMLElement>(`button.lang[lang=${code}]`)?.focus();
      });
    });
    return button;
  });
  const info = session.info();
  const signOut = info ? h('button', { type: 'button', class: 'secondary' }, texts.t('sign_out')) : null;
  signOut?.addEventListener('click', () => void leave(() => api.signOut()));
  const everywhere = info ? h('button', { type: 'button', class: 'secondary' }, texts.t('sign_out_everywhere')) : null;
  everywhere?.addEventListener('click', () => void leave(() => api.signOutEverywhere()));
  return h('div', { class: 'header-inner' },
    h('h1', {}, texts.t('app_title')),
    h('div', { class: 'header-tools' },
      h('div', { role: 'group', 'aria-label': texts.t('language') }, ...languages),
      info ? h('span', { class: 'who', 'data-testid': 'who' }, `${info.user.email} · ${info.organisation.name}`) : null,
      info?.mode === 'test' ? h('span', { class: 'badge' }, texts.t('signed_in_test')) : null,
      signOut, everywhere),
    info ? navigation() : null);
}

/** The sections: every person has files, history and monitors; an admin also users, keys, settings, audit log. */
function navigation(): HTMLElement {
  // A monitor's own page belongs to the monitors section.
  const current = session.monitorId() ? 'monitors' : session.section();
  const item = (section: Section | null, label: string) => {
    const active = section === current && !(section === null && session.jobId());
    return h('li', {}, h('a', { href: section ? `#${section}` : '#', ...(active ? { 'aria-current': 'page' } : {}),
      onclick: section ? undefined : (event: Event) => { event.preventDefault(); session.openJob(null); void render(); } }, label));
  };
  return h('nav', { 'aria-label': texts.t('nav_label') }, h('ul', {},
    item(null, texts.t('nav_check')),
    item('history', texts.t('nav_history')),
    item('monitors', texts.t('nav_monitors')),
    item('account', texts.t('nav_account')),
    session.isAdmin() ? item('users', texts.t('nav_users')) : null,
    session.isAdmin() ? item('keys', texts.t('nav_keys')) : null,
    session.isAdmin() ? item('settings', texts.t('nav_settings')) : null,
    session.isAdmin() ? item('channels', texts.t('nav_channels')) : null,
    session.isAdmin() ? item('audit', texts.t('nav_audit')) : null,
    h('li', {}, h('a', { href: '/docs' }, texts.t('nav_docs')))));
}

async function leave(call: () => Promise<unknown>) {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof ApiFailure && error.problem.status === 401)) app.fail(error);
  }
  session.set(null);
  forgetPendingMonitor();
  shown = null;
  stopPolling();
  session.openJob(null);
  await render();
}

/** Draws the whole page for the current language, session and fragment (start, reload, language switch). */
async function render(): Promise<void> {
  document.documentElement.lang = locale;
  document.title = texts.t('app_title');
  const view = byId('view');
  const token = session.inviteToken();
  if (!token && !session.info()) {
    try {
      session.set(await api.session());
    } catch {
      session.set(null);
    }
  }
  replace(byId('header'), header());
  clearError();
  if (token) {
    stopPolling();
    replace(view, inviteView(app, token, () => void render()));
    replace(byId('jobs'));
    focusHeading(view);
    return;
  }
  if (!session.info()) {
    stopPolling();
    replace(view, signInView(app, () => void render()));
    replace(byId('jobs'));
    jobs = null;
    return;
  }
  const section = session.section();
  const monitorId = session.monitorId();
  if ((section && section !== 'history') || monitorId) {
    stopPolling();
    shown = null;
    replace(byId('jobs'));
    jobs = null;
    const views = { monitors: monitorsView, account: accountView, users: usersView, keys: keysView, settings: settingsView, channels: channelsView, audit: auditView };
    if (monitorId) replace(view, monitorView(app, monitorId));
    else if (section && section !== 'history') {
      const allowed = MEMBER_SECTIONS.includes(section) || session.isAdmin();
      replace(view, allowed ? views[section](app) : h('p', { class: 'card' }, texts.t('admin_only_page')));
    }
    focusHeading(view);
    return;
  }
  jobs = jobsView(app, () => shown?.job.id ?? null, section === 'history');
  replace(byId('jobs'), jobs.element);
  void app.refreshJobs();
  if (section === 'history') {
    stopPolling();
    shown = null;
    replace(view);
    byId('jobs').querySelector<HTMLElement>('#jobs-title')?.focus();
    return;
  }
  const id = session.jobId();
  if (!id) {
    app.showUpload();
    return;
  }
  try {
    showJob(shown?.job.id === id ? shown.job : await api.getJob(id), false);
  } catch (error) {
    app.showUpload();
    app.fail(error);
  }
}

// Back/forward between jobs (the fragment); the page's own changes are already drawn.
window.addEventListener('hashchange', () => {
  const id = session.jobId();
  if (session.inviteToken() || session.section() || session.monitorId() || (!id && !shown)) {
    void render();
    return;
  }
  if (!session.info() || id === (shown?.job.id ?? null)) return;
  if (!id) app.showUpload();
  else api.getJob(id).then((job) => showJob(job, true), (error: unknown) => app.fail(error));
});

await render();
