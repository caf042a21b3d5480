import type { SessionInfo } from './contract.ts';

/**
 * What survives a reload (docs/people.md "Sessions"): the session itself is an HttpOnly cookie the
 * page never sees; the page keeps only what GET /v2/session told it (who, and the CSRF token) in
 * memory and asks again after a reload. The URL fragment names the view: `#job=<id>`, `#history`,
 * `#monitors`, `#monitor=<id>`, `#account`, `#channels`,
 * `#users`, `#keys`, `#settings`, `#audit`, or `#invite=<token>` from an invitation e-mail
 * (fragments are never sent to a server).
 */
const JOB = /^#job=([0-9a-f-]{36})$/;
const INVITE = /^#invite=([\w-]{20,100})$/;
const MONITOR = /^#monitor=([0-9a-f-]{36})$/;
export const SECTIONS = ['history', 'monitors', 'account', 'users', 'keys', 'settings', 'channels', 'audit'] as const;
/** Sections every person has; the others are an admin's. */
export const MEMBER_SECTIONS: readonly Section[] = ['history', 'monitors', 'account'];
export type Section = (typeof SECTIONS)[number];

let current: SessionInfo | null = null;

export const session = {
  info: (): SessionInfo | null => current,
  set(info: SessionInfo | null) {
    current = info;
  },
  csrf: (): string | null => current?.csrf_token ?? null,
  isAdmin: () => current?.user.role === 'admin',
  jobId: (): string | null => JOB.exec(location.hash)?.[1] ?? null,
  inviteToken: (): string | null => INVITE.exec(location.hash)?.[1] ?? null,
  monitorId: (): string | null => MONITOR.exec(location.hash)?.[1] ?? null,
  section(): Section | null {
    const name = location.hash.slice(1);
    return (SECTIONS as readonly string[]).includes(name) ? (name as Section) : null;
  },
  /** Opens a job (a new history entry), or leaves it with null. */
  openJob(id: string | null) {
    const hash = id ? `#job=${id}` : '';
    if (location.hash === hash) return;
    if (id) location.hash = hash;
    else history.pushState(null, '', location.pathname + location.search);
  },
  openSection(section: Section) {
    if (location.hash !== `#${section}`) location.hash = section;
  },
  /** Leaves the invitation link: the token must not stay in the address bar or history. */
  forgetInvite() {
    history.replaceState(null, '', location.pathname + location.search);
  },
};
