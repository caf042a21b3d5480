import { createApi } from './api.ts';
import type { CheckJob, Locale, PageTexts } from './contract.ts';
import { byId, h, replace } from './dom.ts';
import { draftView } from './draft-view.ts';
import { jobView, type JobView } from './job-view.ts';
import { jobsView } from './jobs-view.ts';
import { session } from './session.ts';
import { signInView } from './signin-view.ts';
import { initialLocale, loadTexts, rememberLocale, textsFor } from './texts.ts';
import { clearError, focusHeading, renderError, type App } from './ui.ts';
import { uploadView } from './upload-view.ts';

/** Statuses that still change: the page asks the API again every second. */
const MOVING = new Set(['queued', 'running', 'awaiting_payment']);
const POLL_MS = 1000;

const all: PageTexts = await loadTexts();
let locale: Locale = initialLocale();
let texts = textsFor(all, locale);
const api = createApi(session.key, () => locale);

let shown: { job: CheckJob; view: JobView | null } | null = null;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let jobs: ReturnType<typeof jobsView> | null = null;

const app: App = {
  api,
  get texts() {
    return texts;
  },
  file: null,
  showJob(job) {
    showJob(job, true);
  },
  showUpload() {
    stopPolling();
    shown = null;
    session.openJob(null);
    const view = byId('view');
    replace(view, uploadView(app));
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
      code === 'da' ? 'Dansk' : 'English');
    button.addEventListener('click', () => {
      if (code === locale) return;
      locale = code;
      rememberLocale(code);
      texts = textsFor(all, locale);
      void render();
    });
    return button;
  });
  const signOut = session.key() ? h('button', { type: 'button', class: 'secondary' }, texts.t('sign_out')) : null;
  signOut?.addEventListener('click', () => {
    session.signOut();
    app.file = null;
    shown = null;
    stopPolling();
    session.openJob(null);
    void render();
  });
  return h('div', { class: 'header-inner' },
    h('h1', {}, texts.t('app_title')),
    h('div', { class: 'header-tools' },
      h('div', { role: 'group', 'aria-label': texts.t('language') }, ...languages),
      session.isTestKey() ? h('span', { class: 'badge' }, texts.t('signed_in_test')) : null,
      signOut));
}

/** Draws the whole page for the current language, key and fragment (start, reload, language switch). */
async function render(): Promise<void> {
  document.documentElement.lang = locale;
  document.title = texts.t('app_title');
  replace(byId('header'), header());
  clearError();
  const view = byId('view');
  if (!session.key()) {
    stopPolling();
    replace(view, signInView(app, () => void render()));
    replace(byId('jobs'));
    jobs = null;
    return;
  }
  jobs = jobsView(app, () => shown?.job.id ?? null);
  replace(byId('jobs'), jobs.element);
  void app.refreshJobs();
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
  if (!session.key() || id === (shown?.job.id ?? null)) return;
  if (!id) app.showUpload();
  else api.getJob(id).then((job) => showJob(job, true), (error: unknown) => app.fail(error));
});

await render();
