/**
 * The portal's people over the API (docs/people.md): invitations through the real MTA (Postfix
 * on loopback delivering into Dovecot, read back over IMAP), TOTP codes computed by an
 * independent implementation, session cookies and API keys on the same routes, roles, CSRF,
 * keys, the audit log and settings. The clock is the test's, so TOTP steps are deterministic.
 */
import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../../services/ingest/inbound/secrets.ts';
import { checkDropFolder } from '../../../services/ingest/sftp/check-folder.ts';
import { createEmbeddedConnectorStore } from '../../../services/platform/store/embedded/connectors.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { pipelineTopics } from '../../../infra/topics.ts';
import { createPipelineEvents } from '../../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedPeopleStore } from '../../../services/platform/store/embedded/people.ts';
import { createEmbeddedAccountStore } from '../../../services/platform/store/embedded/accounts.ts';
import type { Organisation } from '../../../services/platform/store/accounts-port.ts';
import { createSmtpInvitationMailer } from '../../../services/api/people/invitation-mail.ts';
import { createPeopleService, type PeopleService } from '../../../services/api/people/people-service.ts';
import { createTotpSecretSeal } from '../../../services/api/people/totp-seal.ts';
import { createJobDataKeys } from '../../../services/platform/keys/data-keys.ts';
import { createEmbeddedDataKeyStore } from '../../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { createEmbeddedInboundStore } from '../../../services/platform/store/embedded/inbound.ts';
import { createMailUser, openImap, textBodyOf, waitForMessages } from '../../support/mail.ts';
import { servers } from '../../support/servers.ts';
import { referenceTotp } from '../../support/totp-reference.ts';
import { bearer, build, cursorSealOf, errorOf } from './helper.ts';

const PUBLIC_URL = 'http://127.0.0.1:1';
const PASSWORD = 'en lang og god adgangskode';

/** A clock the test moves: each sign-in needs a TOTP step later than the last one used. */
function testClock() {
  let now = Date.parse('2026-11-26T10:00:00.000Z');
  return { clock: () => new Date(now), advanceStep: () => { now += 30_000; }, now: () => new Date(now) };
}

async function buildPortal(options: { channelAdding?: boolean } = {}) {
  const time = testClock();
  let service!: PeopleService;
  let dataKeys!: ReturnType<typeof createEmbeddedDataKeyStore>;
  let peopleStore!: ReturnType<typeof createEmbeddedPeopleStore>;
  let keyring!: ReturnType<typeof createEmbeddedKeyRing>;
  const built = await build({
    clock: time.clock,
    withDeps: (db) => {
      const jobs = createEmbeddedJobStore(db);
      const log = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 50 });
      const events = createPipelineEvents({ log, registry: createStaticSchemaRegistry() });
      void log.createTopics(pipelineTopics());
      dataKeys = createEmbeddedDataKeyStore(db);
      keyring = createEmbeddedKeyRing(db);
      peopleStore = createEmbeddedPeopleStore(db);
      service = createPeopleService({
        people: peopleStore, accounts: createEmbeddedAccountStore(db), publicUrl: PUBLIC_URL, clock: time.clock,
        totpSeal: createTotpSecretSeal(createJobDataKeys({ store: dataKeys, keyring })),
        mailer: createSmtpInvitationMailer({ host: servers.smtp.host, port: servers.smtp.port, secure: false, from: 'portal@robinson.test' }),
      });
      const spoolDir = mkdtempSync(join(tmpdir(), 'people-spool-'));
      // Adding channels: a real box and folder check, never reached by the refused requests of these tests.
      const channelAdding = { secrets: createSecretBox(randomBytes(32)), checkDropFolder, allowHosts: [], minIntervalSeconds: 300 };
      return { people: service, inbound: createEmbeddedInboundStore(db), connectors: createEmbeddedConnectorStore(db), ...(options.channelAdding === false ? {} : { channelAdding }), events, checkJobs: { jobs, events, spoolDir, draftDir: join(spoolDir, 'drafts'), cursors: cursorSealOf(db) } };
    },
  });
  return { ...built, time, service, dataKeys, peopleStore, keyring };
}

/** Reads the invitation e-mail in the invitee's real mailbox and returns the link's token. */
async function invitationToken(mailbox: { address: string; password: string }, index = 0): Promise<{ token: string; text: string; subject: string }> {
  const client = await openImap(mailbox as never);
  try {
    const messages = await waitForMessages(client, 'INBOX', index + 1);
    const text = textBodyOf(messages[index].source);
    const token = /#invite=([\w-]+)/.exec(text)?.[1];
    if (!token) throw new Error('no invitation link in the message');
    return { token, text, subject: messages[index].subject };
  } finally {
    await client.logout();
  }
}

interface Person {
  email: string;
  cookie: string;
  csrf: string;
  secret: string;
}

/** Invitation accepted with a password and a code, then signed in: a person with a session. */
async function enrol(portal: Awaited<ReturnType<typeof buildPortal>>, mailbox: { address: string; password: string }, mode: 'live' | 'test' = 'test'): Promise<Person> {
  const { token } = await invitationToken(mailbox);
  const invitation = await portal.app.inject({ method: 'GET', url: `/v2/invitations/${token}` });
  expect(invitation.statusCode).toBe(200);
  const secret = invitation.json().totp_secret as string;
  const accepted = await portal.app.inject({
    method: 'POST', url: `/v2/invitations/${token}`, payload: { password: PASSWORD, code: referenceTotp(secret, portal.time.now()) },
  });
  expect(accepted.statusCode).toBe(200);
  portal.time.advanceStep();
  return signIn(portal.app, mailbox.address, secret, portal.time.now(), mode);
}

async function signIn(app: FastifyInstance, email: string, secret: string, at: Date, mode: 'live' | 'test' = 'test'): Promise<Person> {
  const response = await app.inject({ method: 'POST', url: '/v2/session', payload: { email, password: PASSWORD, code: referenceTotp(secret, at), mode } });
  expect(response.statusCode).toBe(200);
  const setCookie = String(response.headers['set-cookie']);
  const cookie = /^(__Host-robinson_session=[\w-]+)/.exec(setCookie)?.[1];
  if (!cookie) throw new Error('no session cookie');
  return { email, cookie, csrf: response.json().csrf_token, secret };
}

const as = (p: Person, changes = false) => ({ cookie: p.cookie, ...(changes ? { 'x-csrf-token': p.csrf } : {}) });

async function firstAdmin(portal: Awaited<ReturnType<typeof buildPortal>>, org: Organisation) {
  const mailbox = await createMailUser('admin', 'customer.test');
  await portal.service.invite(null, { org, email: mailbox.address, role: 'admin', locale: 'da' });
  return { mailbox, person: await enrol(portal, mailbox) };
}

describe('portal people (docs/people.md)', () => {
  it('invites through the MTA; the link sets a password and a TOTP app; sign-in sets a Secure, HttpOnly, SameSite cookie', async () => {
    const portal = await buildPortal();
    const mailbox = await createMailUser('anna', 'customer.test');
    await portal.service.invite(null, { org: portal.orgA.org, email: mailbox.address.toUpperCase(), role: 'admin', locale: 'da' });
    const { token, text, subject } = await invitationToken(mailbox);
    expect(subject).toContain(portal.orgA.org.name);
    expect(text).toContain(`${PUBLIC_URL}/#invite=${token}`);
    expect(text).toContain('Åbn linket');

    const invitation = await portal.app.inject({ method: 'GET', url: `/v2/invitations/${token}` });
    expect(invitation.json()).toMatchObject({ email: mailbox.address.toLowerCase(), organisation: portal.orgA.org.name, role: 'admin' });
    const secret = invitation.json().totp_secret as string;
    expect(invitation.json().otpauth_uri).toContain(`secret=${secret}`);

    const short = await portal.app.inject({ method: 'POST', url: `/v2/invitations/${token}`, headers: { 'accept-language': 'en' }, payload: { password: 'kort', code: referenceTotp(secret, portal.time.now()) } });
    expect(short.statusCode).toBe(422);
    expect(short.json().error.details.issues).toEqual([{ path: 'password', message: 'The password must be 12 to 200 characters.' }]);
    const wrongCode = await portal.app.inject({ method: 'POST', url: `/v2/invitations/${token}`, payload: { password: PASSWORD, code: referenceTotp(secret, portal.time.now(), 5) } });
    expect(wrongCode.statusCode).toBe(422);
    expect(wrongCode.json().error.details.issues[0].path).toBe('code');
    // Refused attempts changed nothing: the invitation still opens.
    expect((await portal.app.inject({ method: 'GET', url: `/v2/invitations/${token}` })).statusCode).toBe(200);

    const accepted = await portal.app.inject({ method: 'POST', url: `/v2/invitations/${token}`, payload: { password: PASSWORD, code: referenceTotp(secret, portal.time.now()) } });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toMatchObject({ status: 'active', role: 'admin' });
    expect((await portal.app.inject({ method: 'GET', url: `/v2/invitations/${token}` })).statusCode).toBe(404);
    const again = await portal.app.inject({ method: 'POST', url: `/v2/invitations/${token}`, payload: { password: PASSWORD, code: referenceTotp(secret, portal.time.now(), 1) } });
    expect(again.statusCode).toBe(404);

    // The code used to accept cannot sign in (a step is used once); nor can a wrong password.
    const replay = await portal.app.inject({ method: 'POST', url: '/v2/session', headers: { 'accept-language': 'en' }, payload: { email: mailbox.address, password: PASSWORD, code: referenceTotp(secret, portal.time.now()) } });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error.message).toBe('The e-mail, password or code from your authenticator app is not right. Please try again.');
    expect(replay.headers['set-cookie']).toBeUndefined();
    portal.time.advanceStep();
    const wrongPassword = await portal.app.inject({ method: 'POST', url: '/v2/session', payload: { email: mailbox.address, password: `${PASSWORD}x`, code: referenceTotp(secret, portal.time.now()) } });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json().error.message).toBe('E-mail, adgangskode eller kode fra godkendelses-appen passer ikke. Prøv igen.');
    const unknown = await portal.app.inject({ method: 'POST', url: '/v2/session', payload: { email: 'nobody@customer.test', password: PASSWORD, code: '123456' } });
    expect(unknown.json().error).toEqual({ ...wrongPassword.json().error, request_id: unknown.json().error.request_id });

    const signedIn = await portal.app.inject({ method: 'POST', url: '/v2/session', payload: { email: mailbox.address, password: PASSWORD, code: referenceTotp(secret, portal.time.now()) } });
    expect(signedIn.statusCode).toBe(200);
    const setCookie = String(signedIn.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-robinson_session=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/);
    expect(signedIn.json()).toMatchObject({ user: { email: mailbox.address.toLowerCase(), role: 'admin' }, organisation: { id: portal.orgA.org.id }, mode: 'live' });
    const cookie = setCookie.split(';')[0];
    const session = await portal.app.inject({ method: 'GET', url: '/v2/session', headers: { cookie } });
    expect(session.json().csrf_token).toBe(signedIn.json().csrf_token);
    await mailbox.remove();
  });

  it('a session and an API key reach the same job routes; a change by cookie needs the CSRF token', async () => {
    const portal = await buildPortal();
    const { person } = await firstAdmin(portal, portal.orgA.org);
    const payload = { people: [{ id: 'r1', name: 'Anne Robinson', address: 'Vestergade 1, 8000 Aarhus C' }] };
    const noToken = await portal.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: as(person), payload });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.details.reason).toBe('csrf_token_missing');
    const wrongToken = await portal.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: { ...as(person), 'x-csrf-token': 'x'.repeat(43) }, payload });
    expect(wrongToken.statusCode).toBe(403);
    const created = await portal.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: as(person, true), payload });
    expect(created.statusCode).toBe(202);
    const byCookie = await portal.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: as(person) });
    const byKey = await portal.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(portal.orgA.testKey) });
    expect(byCookie.json().data.map((j: { id: string }) => j.id)).toEqual([created.json().id]);
    expect(byKey.json().data.map((j: { id: string }) => j.id)).toEqual([created.json().id]);
    // Another organisation's key does not see it; a bad cookie is 401 in a person's words.
    const other = await portal.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(portal.orgB.testKey) });
    expect(other.json().data).toEqual([]);
    const forged = await portal.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: { cookie: `__Host-robinson_session=${'A'.repeat(43)}`, 'accept-language': 'en' } });
    expect(forged.statusCode).toBe(401);
    expect(forged.json().error.message).toBe('You are not signed in (or your session has ended). Please sign in again.');
    // The audit log holds who started the job, by id, and none of the contact's data.
    const audit = await portal.app.inject({ method: 'GET', url: '/v2/audit-log', headers: as(person) });
    const entries = audit.json().data as Array<{ action: string; actor: string; actor_kind: string }>;
    expect(entries.find((e) => e.action === 'POST /v2/check-jobs')).toMatchObject({ actor_kind: 'user', actor: person.email.toLowerCase() });
    expect(audit.body).not.toContain('Robinson');
    expect(audit.body).not.toContain('Vestergade');
  });

  it('a member works with jobs but reaches no admin action, through the page or the API; neither does an API key', async () => {
    const portal = await buildPortal();
    const { person: admin } = await firstAdmin(portal, portal.orgA.org);
    const memberBox = await createMailUser('member', 'customer.test');
    const invited = await portal.app.inject({ method: 'POST', url: '/v2/users', headers: as(admin, true), payload: { email: memberBox.address, role: 'member' } });
    expect(invited.statusCode).toBe(201);
    expect(invited.json()).toMatchObject({ role: 'member', status: 'invited' });
    const member = await enrol(portal, memberBox);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: as(member) })).statusCode).toBe(200);

    const adminActions = [
      { method: 'GET', url: '/v2/users' },
      { method: 'POST', url: '/v2/users', payload: { email: 'x@customer.test', role: 'admin' } },
      { method: 'POST', url: `/v2/users/${invited.json().id}/role`, payload: { role: 'admin' } },
      { method: 'DELETE', url: `/v2/users/${invited.json().id}` },
      { method: 'GET', url: '/v2/api-keys' },
      { method: 'POST', url: '/v2/api-keys', payload: { label: 'mine' } },
      { method: 'GET', url: '/v2/audit-log' },
      { method: 'PUT', url: '/v2/settings', payload: { stop_level: 5 } },
      { method: 'GET', url: '/v2/email-senders' },
      { method: 'POST', url: '/v2/email-senders', payload: { address: 'x@customer.test' } },
      { method: 'GET', url: '/v2/drop-folders' },
      // Adding channels (docs/inbound.md "In the page"): refused before any connection is made.
      {
        method: 'POST', url: '/v2/drop-folders',
        payload: { host: '127.0.0.1', username: 'shop', host_public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBuk+aH/G1m3I8XZ7mnj9/Kfs7SxlrGU2Cpcs21C0AEa', password: 'et kodeord' },
      },
      { method: 'POST', url: '/v2/connectors', payload: { url: 'https://127.0.0.1/kunder.csv', interval_minutes: 60 } },
    ] as const;
    for (const action of adminActions) {
      const byMember = await portal.app.inject({ ...action, headers: { ...as(member, true), 'accept-language': 'en' } });
      expect(byMember.statusCode, `${action.method} ${action.url}`).toBe(403);
      expect(byMember.json().error.message).toBe('This needs the administrator role. Ask an administrator in your organisation.');
      const byKey = await portal.app.inject({ ...action, headers: bearer(portal.orgA.liveKey) });
      expect(byKey.statusCode, `${action.method} ${action.url}`).toBe(403);
      expect(byKey.json().error.details.reason).toBe('signed_in_admin_required');
    }
    // Nothing changed: still one admin and one member, the stop line as it was.
    const users = await portal.app.inject({ method: 'GET', url: '/v2/users', headers: as(admin) });
    expect(users.json().data.map((u: { role: string }) => u.role).sort()).toEqual(['admin', 'member']);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/settings', headers: as(member) })).json()).toEqual({ stop_level: 1, retention_days: 30 });

    // Promoted, the member's old sessions end (new rights, new sign-in); then the admin may not demote the last other admin away.
    const promoted = await portal.app.inject({ method: 'POST', url: `/v2/users/${invited.json().id}/role`, headers: as(admin, true), payload: { role: 'admin' } });
    expect(promoted.json().role).toBe('admin');
    expect((await portal.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: as(member) })).statusCode).toBe(401);
    await memberBox.remove();
  });

  it('keys are created with a label, shown once, work, and stop when revoked; every step is in the audit log', async () => {
    const portal = await buildPortal();
    const { person: admin } = await firstAdmin(portal, portal.orgA.org);
    // The audit log is ordered by time: the test's clock moves between the steps, as a real one does.
    portal.time.advanceStep();
    const created = await portal.app.inject({ method: 'POST', url: '/v2/api-keys', headers: as(admin, true), payload: { label: 'CRM-eksport', mode: 'live' } });
    expect(created.statusCode).toBe(201);
    const { key, api_key: record } = created.json();
    expect(key).toMatch(/^rl_live_[0-9A-Za-z]{40}$/);
    expect(record).toMatchObject({ label: 'CRM-eksport', mode: 'live', prefix: key.slice(0, 12), revoked_at: null });
    expect((await portal.app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(key) })).statusCode).not.toBe(401);
    const listed = await portal.app.inject({ method: 'GET', url: '/v2/api-keys', headers: as(admin) });
    expect(listed.body).not.toContain(key);
    expect(listed.json().data.find((k: { id: string }) => k.id === record.id)).toMatchObject({ label: 'CRM-eksport' });
    portal.time.advanceStep();
    const revoked = await portal.app.inject({ method: 'DELETE', url: `/v2/api-keys/${record.id}`, headers: as(admin, true) });
    expect(revoked.json().revoked_at).not.toBeNull();
    expect((await portal.app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(key) })).statusCode).toBe(401);
    // Another organisation's key id is "not found", not revoked.
    const otherKeys = await portal.accounts.listKeys(portal.orgB.org.id);
    const foreign = await portal.app.inject({ method: 'DELETE', url: `/v2/api-keys/${otherKeys[0].id}`, headers: as(admin, true) });
    expect(foreign.statusCode).toBe(404);
    expect((await portal.accounts.listKeys(portal.orgB.org.id))[0].revoked_at).toBeNull();

    const audit = await portal.app.inject({ method: 'GET', url: '/v2/audit-log?limit=3', headers: as(admin) });
    expect(audit.json().data.map((e: { action: string }) => e.action)).toEqual(['key.revoked', 'key.created', 'session.signed_in']);
    expect(audit.json().data[0]).toMatchObject({ target: record.id, actor: admin.email.toLowerCase() });
    expect(audit.json().has_more).toBe(true);
  });

  it('the TOTP secret is sealed at rest with the person\'s own data key; removing the person forgets the key', async () => {
    const portal = await buildPortal();
    const { mailbox, person: admin } = await firstAdmin(portal, portal.orgA.org);
    const users = (await portal.app.inject({ method: 'GET', url: '/v2/users', headers: as(admin) })).json().data as Array<{ id: string }>;
    const stored = (await portal.peopleStore.getUser(users[0].id))!;
    // Not the secret the app was given, nor any part of it: only the sealed form is in the store.
    expect(stored.totp_secret).toMatch(/^sealed1\.[0-9a-f]{16}\.[\w-]+$/);
    expect(stored.totp_secret).not.toContain(admin.secret);
    expect(await portal.dataKeys.listJobKeys(`portal-user:${stored.id}`)).toHaveLength(1);
    // Signing in opens it (the person signed in above with the app's code).
    expect((await portal.app.inject({ method: 'GET', url: '/v2/session', headers: as(admin) })).statusCode).toBe(200);

    const memberBox = await createMailUser('sealed', 'customer.test');
    const invited = await portal.app.inject({ method: 'POST', url: '/v2/users', headers: as(admin, true), payload: { email: memberBox.address, role: 'member' } });
    expect(invited.statusCode).toBe(201);
    portal.time.advanceStep();
    const member = await enrol(portal, memberBox);
    const memberId = invited.json().id as string;
    expect(await portal.dataKeys.listJobKeys(`portal-user:${memberId}`)).toHaveLength(1);
    expect((await portal.app.inject({ method: 'DELETE', url: `/v2/users/${memberId}`, headers: as(admin, true) })).statusCode).toBe(200);
    expect(await portal.dataKeys.listJobKeys(`portal-user:${memberId}`)).toEqual([]);
    // The stored copy no longer opens with any key the service holds.
    const sealed = (await portal.peopleStore.getUser(memberId))!.totp_secret;
    const seal = createTotpSecretSeal(createJobDataKeys({ store: portal.dataKeys, keyring: portal.keyring, cacheMs: 0 }));
    await expect(seal.open(memberId, sealed)).rejects.toThrow(/data key is gone/);
    // A secret stored before sealing (no prefix) is still read as it is.
    expect(await seal.open(memberId, 'JBSWY3DPEHPK3PXP')).toBe('JBSWY3DPEHPK3PXP');
    expect(member.secret).not.toBe('');
    await mailbox.remove();
    await memberBox.remove();
  });

  it('recovery codes: ten shown once, each signs in once in place of the app\'s code, a new set voids the old; only a person makes them', async () => {
    const portal = await buildPortal();
    const { mailbox, person: admin } = await firstAdmin(portal, portal.orgA.org);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/session/recovery-codes', headers: as(admin) })).json()).toEqual({ remaining: 0 });
    const made = await portal.app.inject({ method: 'POST', url: '/v2/session/recovery-codes', headers: as(admin, true) });
    expect(made.statusCode).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    const codes = made.json().codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    const users = (await portal.app.inject({ method: 'GET', url: '/v2/users', headers: as(admin) })).json().data as Array<{ id: string }>;
    expect((await portal.app.inject({ method: 'GET', url: '/v2/session/recovery-codes', headers: as(admin) })).json()).toEqual({ remaining: 10 });

    // Each attempt a step later (the sign-in throttle allows five at once, then one per 12 s).
    const signInWith = (code: string) => {
      portal.time.advanceStep();
      return portal.app.inject({ method: 'POST', url: '/v2/session', payload: { email: mailbox.address, password: PASSWORD, code } });
    };
    // Typed as a person might: capitals, no dashes.
    expect((await signInWith(codes[0].replace(/-/g, '').toUpperCase())).statusCode).toBe(200);
    expect((await signInWith(codes[0])).statusCode).toBe(401);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/session/recovery-codes', headers: as(admin) })).json()).toEqual({ remaining: 9 });
    // The password is still needed.
    portal.time.advanceStep();
    const noPassword = await portal.app.inject({ method: 'POST', url: '/v2/session', payload: { email: mailbox.address, password: `${PASSWORD}x`, code: codes[1] } });
    expect(noPassword.statusCode).toBe(401);

    const again = await portal.app.inject({ method: 'POST', url: '/v2/session/recovery-codes', headers: as(admin, true) });
    const fresh = again.json().codes as string[];
    expect((await signInWith(codes[1])).statusCode).toBe(401);
    expect((await signInWith(fresh[0])).statusCode).toBe(200);
    // Only SHA-256 hashes are stored: no code appears in the database file.
    expect(JSON.stringify(await portal.peopleStore.getUser(users[0].id))).not.toContain(fresh[1].replace(/-/g, ''));
    // An API key cannot make codes (they are a person's second factor).
    const byKey = await portal.app.inject({ method: 'POST', url: '/v2/session/recovery-codes', headers: bearer(portal.orgA.testKey) });
    expect(byKey.statusCode).toBe(403);
    const audit = (await portal.app.inject({ method: 'GET', url: '/v2/audit-log', headers: as(admin) })).json().data as Array<{ action: string }>;
    expect(audit.filter((e) => e.action === 'user.recovery_code_used')).toHaveLength(2);
    expect(audit.filter((e) => e.action === 'user.recovery_codes_created')).toHaveLength(2);
    await mailbox.remove();
  });

  it('sign out ends one session; sign out everywhere ends them all; the last admin stays', async () => {
    const portal = await buildPortal();
    const { person: laptop } = await firstAdmin(portal, portal.orgA.org);
    portal.time.advanceStep();
    const phone = await signIn(portal.app, laptop.email, laptop.secret, portal.time.now());
    portal.time.advanceStep();
    const tablet = await signIn(portal.app, laptop.email, laptop.secret, portal.time.now());
    const out = await portal.app.inject({ method: 'DELETE', url: '/v2/session', headers: as(phone, true) });
    expect(out.headers['set-cookie']).toMatch(/Max-Age=0/);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/session', headers: as(phone) })).statusCode).toBe(401);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/session', headers: as(laptop) })).statusCode).toBe(200);

    const users = await portal.app.inject({ method: 'GET', url: '/v2/users', headers: as(laptop) });
    const self = users.json().data[0].id;
    const demote = await portal.app.inject({ method: 'POST', url: `/v2/users/${self}/role`, headers: as(laptop, true), payload: { role: 'member' } });
    expect(demote.statusCode).toBe(409);
    const remove = await portal.app.inject({ method: 'DELETE', url: `/v2/users/${self}`, headers: as(laptop, true) });
    expect(remove.statusCode).toBe(409);

    await portal.app.inject({ method: 'POST', url: '/v2/session/sign-out-everywhere', headers: as(tablet, true) });
    for (const device of [laptop, tablet]) expect((await portal.app.inject({ method: 'GET', url: '/v2/session', headers: as(device) })).statusCode).toBe(401);
  });

  it('settings change by an admin; bad input is a 422 in the caller\'s language and changes nothing; sign-in is throttled', async () => {
    const portal = await buildPortal();
    const { person: admin } = await firstAdmin(portal, portal.orgA.org);
    const bad = await portal.app.inject({ method: 'PUT', url: '/v2/settings', headers: { ...as(admin, true), 'accept-language': 'en' }, payload: { stop_level: 9 } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.details.issues[0].path).toBe('stop_level');
    const good = await portal.app.inject({ method: 'PUT', url: '/v2/settings', headers: as(admin, true), payload: { stop_level: 3, retention_days: 7 } });
    expect(good.json()).toEqual({ stop_level: 3, retention_days: 7 });
    expect((await portal.accounts.getOrganisation(portal.orgA.org.id))?.stop_level).toBe(3);

    for (const body of [{}, { email: 5 }, 'not json', { email: 'a@b', password: 'x'.repeat(201), code: '1' }]) {
      const response = await portal.app.inject({ method: 'POST', url: '/v2/session', payload: body as never, headers: { 'content-type': 'application/json' } });
      expect(response.statusCode, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, JSON.stringify(body)).toBeLessThan(500);
    }
    expect((await portal.app.inject({ method: 'GET', url: '/v2/invitations/not-a-token' })).statusCode).toBe(404);
    expect((await portal.app.inject({ method: 'GET', url: '/v2/invitations/%00%ff' })).statusCode).toBe(400);

    const attempts = [];
    for (let i = 0; i < 6; i++) {
      attempts.push((await portal.app.inject({ method: 'POST', url: '/v2/session', payload: { email: admin.email, password: 'wrong password here', code: '000000' } })).statusCode);
    }
    expect(attempts).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('an e-mail sender another organisation allowed is refused (422 at address, in the caller\'s language); neither list changes', async () => {
    const portal = await buildPortal();
    const { person: adminA } = await firstAdmin(portal, portal.orgA.org);
    const { person: adminB } = await firstAdmin(portal, portal.orgB.org);
    const added = await portal.app.inject({ method: 'POST', url: '/v2/email-senders', headers: as(adminA, true), payload: { address: 'Indkoeb@Kunde.test' } });
    expect(added.statusCode, added.body).toBe(201);
    for (const [language, message] of [
      ['da', 'Adressen er allerede tilladt for en anden organisation.'],
      ['en', 'The address is already allowed for another organisation.'],
    ] as const) {
      const taken = await portal.app.inject({
        method: 'POST', url: '/v2/email-senders', headers: { ...as(adminB, true), 'accept-language': language }, payload: { address: 'indkoeb@kunde.test' },
      });
      expect(taken.statusCode).toBe(422);
      expect(errorOf(taken).details?.issues).toEqual([{ path: 'address', message }]);
    }
    const listOf = async (admin: Person) => (await portal.app.inject({ method: 'GET', url: '/v2/email-senders', headers: as(admin) })).json().data.map((s: { address: string }) => s.address);
    expect(await listOf(adminA)).toEqual(['indkoeb@kunde.test']);
    expect(await listOf(adminB)).toEqual([]);
  });

  it('without INBOUND_SECRET_KEY adding a folder or a connector is a 403 that says who can (in the caller\'s language); nothing is stored', async () => {
    const portal = await buildPortal({ channelAdding: false });
    const { person: admin } = await firstAdmin(portal, portal.orgA.org);
    const adds = [
      { url: '/v2/drop-folders', payload: { host: '127.0.0.1', username: 'shop', host_public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBuk+aH/G1m3I8XZ7mnj9/Kfs7SxlrGU2Cpcs21C0AEa', password: 'et kodeord' } },
      { url: '/v2/connectors', payload: { url: 'https://127.0.0.1/kunder.csv', interval_minutes: 60 } },
    ];
    for (const add of adds) {
      for (const [language, start] of [['da', 'Mapper og forbindelser kan ikke tilføjes'], ['en', 'Drop folders and connectors cannot be added']] as const) {
        const refused = await portal.app.inject({ method: 'POST', ...add, headers: { ...as(admin, true), 'accept-language': language } });
        expect(refused.statusCode, add.url).toBe(403);
        expect(errorOf(refused).details?.reason).toBe('channel_adding_off');
        expect(errorOf(refused).message.startsWith(start)).toBe(true);
      }
      const listed = await portal.app.inject({ method: 'GET', url: add.url, headers: as(admin) });
      expect(listed.json().data).toEqual([]);
    }
  });
});
