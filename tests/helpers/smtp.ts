/** A real SMTP server (npm smtp-server) on loopback that end-to-end tests send mail to. */
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
  /** the body with quoted-printable soft breaks and escapes undone */
  text: string;
  /** set by a test that has dealt with this message */
  used?: boolean;
}

export interface LocalSmtp {
  url: string;
  received: ReceivedMail[];
  waitFor(ok: (m: ReceivedMail) => boolean, what: string): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

function decodeBody(raw: string): string {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join("\n\n");
  if (!/quoted-printable/i.test(head)) return body;
  const bytes = body.replace(/=\r?\n/g, "").replace(
    /=([0-9A-F]{2})/g,
    (_, h) => String.fromCharCode(parseInt(h, 16)),
  );
  return new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
}

/**
 * A real SMTP server (npm smtp-server) on 127.0.0.1, any port, no TLS, no auth. `refuse` names recipients
 * it turns away at RCPT TO with a 552 whose text quotes the address, as real servers do.
 */
export async function startLocalSmtp(opts: { refuse?: (to: string) => boolean } = {}): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  // deno-lint-ignore no-explicit-any
  const server: any = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    // deno-lint-ignore no-explicit-any
    onRcptTo(addr: any, _session: unknown, done: (err?: Error) => void) {
      if (!opts.refuse?.(String(addr.address))) return done();
      const err = new Error(`<${addr.address}>: Recipient address rejected: mailbox full`);
      done(Object.assign(err, { responseCode: 552 }));
    },
    // deno-lint-ignore no-explicit-any
    onData(stream: any, session: any, done: (err?: Error) => void) {
      let raw = "";
      stream.on("data", (c: Uint8Array) => (raw += new TextDecoder().decode(c)));
      stream.on("end", () => {
        const subject = raw.match(/^Subject: (.*)$/m)?.[1]?.trim() ?? "";
        // deno-lint-ignore no-explicit-any
        const to = session.envelope.rcptTo.map((r: any) => String(r.address));
        received.push({ to, raw, subject, text: decodeBody(raw) });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.server.address().port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitFor(ok, what) {
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const m = received.find(ok);
        if (m) return m;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no mail ${what}; received: ${received.map((m) => `${m.to} ${m.subject}`).join(", ")}`);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
