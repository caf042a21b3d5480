import nodemailer from 'nodemailer';

/** Where a process sends mail: the relay the deployment names (`SMTP_*`, docs/inbound.md). */
export interface SmtpRelaySettings {
  host: string;
  port: number;
  secure: boolean;
  user?: string | undefined;
  password?: string | undefined;
}

const isLoopback = (host: string) => host === '127.0.0.1' || host === 'localhost';

/**
 * A nodemailer transport to the relay. A loopback relay (tests, a local MTA) speaks plain SMTP;
 * any other gets STARTTLS when it offers it, and with `requireTls` a relay that does not offer it
 * is refused (an invitation carries a sign-up link; a reply carries no secret).
 */
export function createSmtpTransport(relay: SmtpRelaySettings, options: { requireTls: boolean }) {
  return nodemailer.createTransport({
    host: relay.host, port: relay.port, secure: relay.secure,
    ...(relay.user ? { auth: { user: relay.user, pass: relay.password ?? '' } } : {}),
    ignoreTLS: !relay.secure && isLoopback(relay.host),
    ...(options.requireTls ? { requireTLS: !relay.secure && !isLoopback(relay.host) } : {}),
    logger: false,
  });
}
