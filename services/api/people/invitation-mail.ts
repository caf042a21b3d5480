import { createSmtpTransport } from '../../platform/smtp.ts';
import type { Locale } from '../../domain/types.ts';

/**
 * The invitation e-mail (docs/people.md "Invitations"), sent through the deployment's SMTP relay
 * (the SMTP_* settings the email channel replies through). The link carries the token in the URL
 * fragment, which browsers never send to a server, so it stays out of access logs and Referers.
 */
export interface InvitationMail {
  to: string;
  organisation: string;
  link: string;
  locale: Locale;
}

export interface InvitationMailer {
  send(mail: InvitationMail): Promise<void>;
  close(): void;
}

export interface SmtpRelay {
  host: string;
  port: number;
  secure: boolean;
  user?: string | undefined;
  password?: string | undefined;
  from: string;
}

export const TEXT = {
  da: {
    subject: (org: string) => `Invitation til ${org} i Robinson-tjekket`,
    body: (org: string, link: string) =>
      `Du er inviteret til ${org}s konto i Robinson-tjekket.\n\n` +
      `Åbn linket for at vælge en adgangskode og tilføje en totrinskode i din godkendelses-app:\n${link}\n\n` +
      'Linket virker én gang og i 7 dage. Har du ikke ventet invitationen, kan du se bort fra den.\n',
  },
  en: {
    subject: (org: string) => `Invitation to ${org} on the Robinson check`,
    body: (org: string, link: string) =>
      `You have been invited to ${org}'s account on the Robinson check.\n\n` +
      `Open the link to choose a password and add a sign-in code to your authenticator app:\n${link}\n\n` +
      'The link works once and for 7 days. If you did not expect this invitation, you can ignore it.\n',
  },
} as const;

export function invitationSubject(mail: Pick<InvitationMail, 'organisation' | 'locale'>): string {
  return TEXT[mail.locale].subject(mail.organisation);
}

export function invitationBody(mail: Omit<InvitationMail, 'to'>): string {
  return TEXT[mail.locale].body(mail.organisation, mail.link);
}

export function createSmtpInvitationMailer(relay: SmtpRelay): InvitationMailer {
  const transport = createSmtpTransport(relay, { requireTls: true });
  return {
    async send(mail) {
      await transport.sendMail({
        from: relay.from,
        to: mail.to,
        subject: invitationSubject(mail),
        text: invitationBody(mail),
        headers: { 'Content-Language': mail.locale, 'Auto-Submitted': 'auto-generated' },
      });
    },
    close: () => transport.close(),
  };
}
