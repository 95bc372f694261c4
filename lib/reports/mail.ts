/**
 * Report mail: members opt in (per organization, on the reports page); when a report completes and a mailer is
 * configured (SMTP_URL, or the dev console), each opted-in member still in the organization gets the headline,
 * the summary, the findings and a link. Each recipient's mail is claimed with an atomic check before it is
 * sent: two instances never both send it. A failed send gives the claim back, and the hourly job tries again
 * for MAIL_RETRY_MS after the report was generated. At most once, not at least once: a claim whose send was
 * cut off (the instance stopped) or whose failure could not be given back is never sent again, since the
 * mail may have gone out. A link needs an origin: PUBLIC_URL, or the request's when someone generated the report
 * in the app; a scheduled report without PUBLIC_URL names where to find it instead of a link no mail client
 * can open.
 */
import type { Deps } from "../deps.ts";
import { mailFailure } from "../mail.ts";
import { oneLine } from "../text.ts";
import { keys } from "../store/keys.ts";
import { listMembers } from "../people/members.ts";
import type { Report } from "./types.ts";
import { headlineText, periodTitle } from "./periods.ts";

export async function setMailOptIn(kv: Deno.Kv, org: string, userId: string, on: boolean): Promise<void> {
  if (on) await kv.set(keys.reportMailOptIn(org, userId), true);
  else await kv.delete(keys.reportMailOptIn(org, userId));
}

export async function mailOptedIn(kv: Deno.Kv, org: string, userId: string): Promise<boolean> {
  return (await kv.get(keys.reportMailOptIn(org, userId))).value !== null;
}

export const reportPath = (r: Pick<Report, "org" | "id">) => `/app/o/${r.org}/reports/${r.id}`;

/**
 * The mail's text. The headline, summary and claims quote page paths and event names, which anyone holding the
 * site's public key can send: each is kept on its own line (controls escaped), so none adds lines of its own.
 */
export function reportText(r: Report, origin: string | null): string {
  const lines = [oneLine(headlineText(r)), "", oneLine(r.summary), ""];
  if (r.findings.length) {
    lines.push("Findings:");
    for (const f of r.findings) lines.push(`- ${oneLine(f.claim)}`);
    lines.push("");
  }
  lines.push(
    origin ? `Open the report: ${origin}${reportPath(r)}` : oneLine(
      `Open the report in the app: Reports, ${r.touchpoint_name}, ${periodTitle(r.kind, r.period)}.`,
    ),
    "",
    "You get this because you asked for reports by mail; turn it off on the reports page.",
  );
  return lines.join("\n");
}

/** How long after a report was generated a failed mail of it is tried again (each hourly run). */
export const MAIL_RETRY_MS = 24 * 3_600_000;

/**
 * Mails a complete report to each opted-in member who has not had it; returns how many were sent. Called
 * when the report completes and again by each hourly run while the retry window lasts.
 */
export async function mailReport(
  deps: Deps,
  r: Report,
  requestOrigin: string | null = null,
): Promise<number> {
  if (!deps.mail) return 0;
  if (!(deps.clock.now() - Date.parse(r.generated_at) <= MAIL_RETRY_MS)) return 0;
  // mailed whole by the code before per-recipient marks
  if ((await deps.kv.get(keys.reportMailed(r.org, r.env, r.id))).value !== null) return 0;
  const members = await listMembers(deps.kv, r.org);
  const origin = deps.config.publicUrl ?? requestOrigin;
  let sent = 0;
  for (const m of members) {
    if (!(await mailOptedIn(deps.kv, r.org, m.user))) continue;
    const mark = keys.reportMailedTo(r.org, r.env, r.id, m.user);
    if ((await deps.kv.get(mark)).versionstamp !== null) continue; // the usual case on a retry: no write
    const claim = await deps.kv.atomic().check({ key: mark, versionstamp: null })
      .set(mark, { state: "sending", at: deps.clock.now() }).commit();
    if (!claim.ok) continue; // sent, being sent, or cut off mid-send: never twice
    try {
      await deps.mail.send({
        to: m.email,
        subject: `${r.kind === "weekly" ? "Weekly" : "Monthly"} report: ${r.touchpoint_name}, ${
          periodTitle(r.kind, r.period).replace(/^Week of/, "week of")
        }`,
        text: reportText(r, origin),
      });
      sent++;
    } catch (err) {
      deps.log.error("report mail failed", { org: r.org, report: r.id, error: mailFailure(err) });
      // given back (if still ours) so the next hourly run tries again
      await deps.kv.atomic().check({ key: mark, versionstamp: claim.versionstamp }).delete(mark).commit();
      continue;
    }
    // the claim already keeps it from a second send: a failed write here changes nothing else
    await deps.kv.set(mark, { state: "sent", at: deps.clock.now() }).catch(() => {});
  }
  return sent;
}
