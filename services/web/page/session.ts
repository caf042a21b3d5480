/**
 * What survives a reload: the API key in sessionStorage (this tab only, gone when it closes;
 * never in a URL, a cookie or localStorage) and the open job's id in the URL fragment (never sent
 * to a server, kept by reload and back/forward).
 */
const KEY = 'robinson.apiKey';
const JOB = /^#job=([0-9a-f-]{36})$/;

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
  isTestKey: () => (sessionStorage.getItem(KEY) ?? '').startsWith('rl_test_'),
  jobId: (): string | null => JOB.exec(location.hash)?.[1] ?? null,
  /** Opens a job (a new history entry), or leaves it with null. */
  openJob(id: string | null) {
    const hash = id ? `#job=${id}` : '';
    if (location.hash === hash) return;
    if (id) location.hash = hash;
    else history.pushState(null, '', location.pathname + location.search);
  },
};
