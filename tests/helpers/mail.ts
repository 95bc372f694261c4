/** Mail for unit tests: kept in memory. (A real SMTP server for e2e tests: smtp.ts.) */
import type { Mailer, MailMessage } from "../../lib/mail.ts";

export interface MemoryMailer extends Mailer {
  sent: MailMessage[];
}

export function memoryMailer(): MemoryMailer {
  const sent: MailMessage[] = [];
  return { sent, send: (m) => Promise.resolve(void sent.push(m)) };
}

/** The first http(s) link in a text. */
export const linkIn = (text: string) => text.match(/https?:\/\/\S+/)?.[0] ?? null;
