import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../platform/config.ts';
import { ConfigError } from '../../platform/config.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';
import type { Platform } from '../../platform/open-platform.ts';
import type { RetentionSchedule } from '../../platform/retention.ts';
import { openImapMailbox, type Mailbox } from '../email/mailbox.ts';
import { deleteDueMail, runMailPass } from '../email/processor.ts';
import { createSmtpReplySender } from '../email/reply.ts';
import { createSftpPoller } from '../sftp/poller.ts';
import { createConnectorService } from '../connector/service.ts';
import { createMonitorFeed } from '../connector/monitor-feed.ts';
import { parseAllowHosts } from '../../platform/outbound-http/index.ts';
import type { FileJobs } from './file-jobs.ts';
import { createMonitorContactsFeed } from './monitor-contacts.ts';
import { createSecretBox, parseSecretKey, SecretKeyError } from './secrets.ts';

/**
 * Starting and stopping the inbound channels (`npm run service -- sftp|email`, and inside
 * `npm start` when configured). Each gets a local work directory for files in transit
 * (`<spool>/inbound-<channel>`, personal data): what a killed process left there is removed at
 * start, before anything else.
 */
export interface InboundServiceDeps {
  platform: Platform;
  config: Config;
  logger: Logger;
  fileJobs: FileJobs;
  spoolDir: string;
  now?: () => Date;
  /** Extra certificates the connectors trust (a test server's own); else the system's CAs. */
  connectorCa?: string;
  /** The process's retention timer: a channel registers the deletion of what is past delete_after on it. */
  retention: Pick<RetentionSchedule, 'register'>;
}

export interface RunningInbound {
  name: 'sftp' | 'email' | 'connectors';
  stop(): Promise<void>;
}

async function freshWorkDir(spoolDir: string, channel: string): Promise<string> {
  const dir = join(spoolDir, `inbound-${channel}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const name of await readdir(dir)) await rm(join(dir, name), { force: true, recursive: true });
  return dir;
}

/** The box that seals inbound credentials, or a ConfigError when INBOUND_SECRET_KEY is missing. */
function secretBoxOf(config: Config) {
  try {
    return createSecretBox(parseSecretKey(config.INBOUND_SECRET_KEY));
  } catch (error) {
    if (error instanceof SecretKeyError) throw new ConfigError(error.message);
    throw error;
  }
}

export async function startSftpIngest(deps: InboundServiceDeps): Promise<RunningInbound> {
  const { config, platform } = deps;
  const secrets = secretBoxOf(config);
  const poller = createSftpPoller({
    inbound: platform.inbound, accounts: platform.accounts, fileJobs: deps.fileJobs, secrets, logger: deps.logger,
    monitorFeed: createMonitorContactsFeed(platform.monitors, platform.savedMappings, deps.now),
    workDir: await freshWorkDir(deps.spoolDir, 'sftp'),
    pollMs: config.SFTP_POLL_MS, stableMs: config.SFTP_STABLE_MS, concurrency: config.SFTP_CONCURRENCY,
    visitTimeoutMs: config.SFTP_VISIT_TIMEOUT_MS,
    ...(deps.now ? { now: deps.now } : {}),
  });
  deps.retention.register('inbound-delete-after', () => poller.sweepDue());
  poller.start();
  deps.logger.info({ poll_ms: config.SFTP_POLL_MS, stable_ms: config.SFTP_STABLE_MS, concurrency: config.SFTP_CONCURRENCY }, 'sftp.service_started');
  return { name: 'sftp', stop: () => poller.stop() };
}

/** The email service's settings, or a ConfigError naming what is missing. */
export function emailSettings(config: Config) {
  const missing = (['IMAP_HOST', 'IMAP_USER', 'IMAP_PASSWORD', 'SMTP_HOST'] as const).filter((name) => !config[name]);
  if (missing.length > 0) throw new ConfigError(`the email service needs ${missing.join(', ')}`);
  const user = config.IMAP_USER as string;
  return {
    imap: { host: config.IMAP_HOST as string, port: config.IMAP_PORT, secure: config.IMAP_SECURE, user, password: config.IMAP_PASSWORD as string },
    smtp: { host: config.SMTP_HOST as string, port: config.SMTP_PORT, secure: config.SMTP_SECURE, user: config.SMTP_USER, password: config.SMTP_PASSWORD },
    from: config.MAIL_FROM ?? user,
    mailboxName: user.toLowerCase(),
  };
}

export async function startEmailIngest(deps: InboundServiceDeps): Promise<RunningInbound> {
  const { config, platform } = deps;
  const settings = emailSettings(config);
  const logger = deps.logger.child({ module: 'ingest.email' });
  const workDir = await freshWorkDir(deps.spoolDir, 'email');
  const mailbox: Mailbox = await openImapMailbox(settings.imap, logger);
  const replies = createSmtpReplySender(settings.smtp);
  let stopped = false;
  let again = false;
  let passing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const now = deps.now ?? (() => new Date());
  /** Passes and retention sweeps share the one IMAP connection: one at a time. */
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = turn.then(work);
    turn = next.catch(() => undefined);
    return next;
  };

  const pass = () => exclusive(async () => {
    const outcome = await runMailPass({
      mailbox, mailboxName: settings.mailboxName, inbound: platform.inbound, accounts: platform.accounts,
      fileJobs: deps.fileJobs, replies, from: settings.from, quarantineDays: config.EMAIL_QUARANTINE_DAYS,
      workDir, logger, now,
    });
    if (outcome.quarantined + outcome.claimed + outcome.replied > 0) logger.info(outcome, 'email.pass');
    await mailbox.idle();
  });
  deps.retention.register('inbound-delete-after', () => exclusive(async () => {
    const expunged = await deleteDueMail({ mailbox, mailboxName: settings.mailboxName, inbound: platform.inbound, now });
    if (expunged > 0) logger.info({ expunged }, 'email.expired');
    await mailbox.idle();
  }));
  /** One pass at a time; a notice during a pass asks for one more right after. */
  const trigger = () => {
    if (stopped) return;
    if (passing) {
      again = true;
      return;
    }
    passing = pass()
      .catch((error: unknown) => logger.warn(errorFields(error), 'email.pass_failed'))
      .finally(() => {
        passing = null;
        if (again) {
          again = false;
          trigger();
        }
      });
  };
  mailbox.watch(trigger);
  const schedule = () => {
    timer = setTimeout(() => {
      trigger();
      if (!stopped) schedule();
    }, config.EMAIL_POLL_MS);
  };
  trigger();
  schedule();
  logger.info({ poll_ms: config.EMAIL_POLL_MS }, 'email.service_started');
  return {
    name: 'email',
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await passing;
      await mailbox.close();
      replies.close();
    },
  };
}

/** Scheduled HTTPS pulls (docs/connectors.md): their auth headers are sealed like SFTP secrets. */
export async function startConnectorIngest(deps: InboundServiceDeps): Promise<RunningInbound> {
  const { config, platform } = deps;
  const service = createConnectorService({
    connectors: platform.connectors, accounts: platform.accounts, fileJobs: deps.fileJobs, secrets: secretBoxOf(config),
    workDir: await freshWorkDir(deps.spoolDir, 'connector'),
    allowHosts: parseAllowHosts(config.CALLBACK_ALLOW_HOSTS),
    timeoutMs: config.CONNECTOR_TIMEOUT_MS, maxBytes: config.CONNECTOR_MAX_MB * 1024 * 1024,
    tickMs: config.CONNECTOR_TICK_MS, concurrency: config.CONNECTOR_CONCURRENCY,
    logger: deps.logger, now: deps.now ?? (() => new Date()),
    replaceMonitorContacts: createMonitorFeed(platform.monitors, platform.savedMappings, deps.now),
    ...(deps.connectorCa ? { ca: deps.connectorCa } : {}),
  });
  service.start();
  deps.logger.info({ tick_ms: config.CONNECTOR_TICK_MS, concurrency: config.CONNECTOR_CONCURRENCY }, 'connector.service_started');
  return { name: 'connectors', stop: () => service.stop() };
}
