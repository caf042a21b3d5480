import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { AccountStore } from '../../platform/store/accounts-port.ts';
import type { PeopleStore } from '../../platform/store/people-port.ts';
import { createSmtpInvitationMailer } from './invitation-mail.ts';
import { createPeopleService, type PeopleService } from './people-service.ts';
import { createTotpSecretSeal } from './totp-seal.ts';
import type { JobDataKeys } from '../../platform/keys/data-keys.ts';

type MailConfig = Pick<Config, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER' | 'SMTP_PASSWORD' | 'MAIL_FROM' | 'IMAP_USER' | 'PUBLIC_URL' | 'PORT'>;

/**
 * The people service of a process (the API, the admin tool). Invitations go through the SMTP
 * relay the email channel replies through (SMTP_*, From: MAIL_FROM, else IMAP_USER); without a
 * relay inviting answers 503 and everything else works (docs/people.md "Invitations").
 */
export function peopleServiceFromConfig(stores: { people: PeopleStore; accounts: AccountStore; jobKeys: JobDataKeys }, config: MailConfig, logger?: Logger): PeopleService {
  const from = config.MAIL_FROM ?? config.IMAP_USER;
  const mailer = config.SMTP_HOST && from
    ? createSmtpInvitationMailer({
      host: config.SMTP_HOST, port: config.SMTP_PORT, secure: config.SMTP_SECURE, user: config.SMTP_USER, password: config.SMTP_PASSWORD, from,
    })
    : undefined;
  return createPeopleService({
    people: stores.people, accounts: stores.accounts, totpSeal: createTotpSecretSeal(stores.jobKeys), publicUrl: config.PUBLIC_URL ?? `http://localhost:${config.PORT}`,
    ...(mailer ? { mailer } : {}),
    ...(logger ? { logger: logger.child({ module: 'people' }) } : {}),
  });
}
