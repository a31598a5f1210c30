/**
 * Outgoing e-mail over SMTP (issue 38 §2: the booking page's owner is told of each booking), through nodemailer.
 * SMTP_URL unset: no mailer, and callers log that the e-mail was skipped.
 */
import nodemailer from 'nodemailer';

/** One message: plain text, one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Reply-To (the customer, so the owner can answer them directly). */
  replyTo?: string;
}

/** The sending port: resolves with the SMTP message id once the server accepted the message. */
export interface Mailer {
  send(message: MailMessage): Promise<string>;
}

/**
 * A mailer over `smtpUrl` (`smtp://user:pass@host:port`, `smtps://` for implicit TLS), sending from `from`; null
 * when no URL is configured.
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer | null {
  if (!smtpUrl) return null;
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(m) {
      const info = await transport.sendMail({
        from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
      });
      return info.messageId;
    },
  };
}
