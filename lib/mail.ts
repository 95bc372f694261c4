/**
 * Mailers. With SMTP_URL set, mail goes through nodemailer (loaded only then); without it the message goes
 * to the operator log (production) or is printed readably (`deno task dev`). A log line carries the subject,
 * the text (the link, shown this once) and the recipient's address masked, never the address itself.
 */
import type { Log } from "./log.ts";

/** One plain-text message (links for invitations and password resets). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail. Production: SMTP (nodemailer) when SMTP_URL is set, else the operator log; tests: a local server. */
export interface Mailer {
  send(msg: MailMessage): Promise<void>;
}

/** "ann.smith@example.com" → "a***@example.com": enough for an operator to tell messages apart. */
export const maskEmail = (email: string) => email.replace(/^(.)[^@]*/, "$1***");

export function logMailer(log: Log): Mailer {
  return {
    send(msg) {
      log.info("mail not sent (no SMTP_URL); passing it on is up to the operator", {
        to_masked: maskEmail(msg.to),
        subject: msg.subject,
        text: msg.text,
      });
      return Promise.resolve();
    },
  };
}

/** `deno task dev` without SMTP_URL: the message on the console, as a person would read it. */
export function printMailer(): Mailer {
  return {
    send(msg) {
      console.log(`\n--- mail to ${msg.to}: ${msg.subject}\n${msg.text}\n---\n`);
      return Promise.resolve();
    },
  };
}

interface Transport {
  sendMail(m: { from: string; to: string; subject: string; text: string }): Promise<unknown>;
}

/** SMTP through nodemailer, e.g. SMTP_URL=smtps://user:pass@smtp.example.com:465. */
export async function smtpMailer(url: string, from: string): Promise<Mailer> {
  const nodemailer = (await import("nodemailer")).default as {
    createTransport(url: string): Transport;
  };
  const transport = nodemailer.createTransport(url);
  return {
    async send(msg: MailMessage) {
      try {
        await transport.sendMail({ from, to: msg.to, subject: msg.subject, text: msg.text });
      } catch (err) {
        throw new MailNotSent(msg.to, err);
      }
    },
  };
}

/**
 * A message the mail server refused or could not take. The server's own reply often quotes the recipient
 * ("<ann@example.com>: mailbox full"), so only its code is kept: the error is safe to log.
 */
export class MailNotSent extends Error {
  constructor(to: string, cause: unknown) {
    const c = cause as { responseCode?: unknown; code?: unknown };
    const why = typeof c?.responseCode === "number"
      ? `the mail server answered ${c.responseCode}`
      : typeof c?.code === "string" && /^[A-Z_]{2,30}$/.test(c.code)
      ? `the mail server could not be reached or refused it (${c.code})`
      : "the mail server could not take it";
    super(`mail to ${maskEmail(to)} not sent: ${why}`);
    this.name = "MailNotSent";
  }
}

/** What a failed send may say in a log line: MailNotSent's masked message, never another error's text. */
export const mailFailure = (err: unknown) => err instanceof MailNotSent ? err.message : "the mailer failed";
