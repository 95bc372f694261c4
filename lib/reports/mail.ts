/**
 * Report mail: members opt in (per organization, on the reports page); when a report completes and a mailer is
 * configured (SMTP_URL, or the dev console), each opted-in member still in the organization gets the headline,
 * the summary, the findings and a link. A marker set with an atomic check first means a retried job never
 * mails a report twice. A link needs an origin: PUBLIC_URL, or the request's when someone generated the report
 * in the app; a scheduled report without PUBLIC_URL names where to find it instead of a link no mail client
 * can open.
 */
import type { Deps } from "../deps.ts";
import { mailFailure } from "../mail.ts";
import { keys } from "../store/keys.ts";
import { listMembers } from "../people/members.ts";
import type { Report } from "./types.ts";

export async function setMailOptIn(kv: Deno.Kv, org: string, userId: string, on: boolean): Promise<void> {
  if (on) await kv.set(keys.reportMailOptIn(org, userId), true);
  else await kv.delete(keys.reportMailOptIn(org, userId));
}

export async function mailOptedIn(kv: Deno.Kv, org: string, userId: string): Promise<boolean> {
  return (await kv.get(keys.reportMailOptIn(org, userId))).value !== null;
}

export const reportPath = (r: Pick<Report, "org" | "id">) => `/app/o/${r.org}/reports/${r.id}`;

export function reportText(r: Report, origin: string | null): string {
  const lines = [r.headline, "", r.summary, ""];
  if (r.findings.length) {
    lines.push("Findings:");
    for (const f of r.findings) lines.push(`- ${f.claim}`);
    lines.push("");
  }
  lines.push(
    origin
      ? `Open the report: ${origin}${reportPath(r)}`
      : `Open the report in the app: Reports, ${r.touchpoint_name}, ${r.period_key}.`,
    "",
    "You get this because you asked for reports by mail; turn it off on the reports page.",
  );
  return lines.join("\n");
}

/** Mails a complete report to its opted-in members once; returns how many were sent. */
export async function mailReport(
  deps: Deps,
  r: Report,
  requestOrigin: string | null = null,
): Promise<number> {
  if (!deps.mail) return 0;
  const marker = keys.reportMailed(r.org, r.env, r.id);
  const set = await deps.kv.atomic().check({ key: marker, versionstamp: null })
    .set(marker, { at: deps.clock.now() }).commit();
  if (!set.ok) return 0; // another run mailed it
  const members = await listMembers(deps.kv, r.org);
  const origin = deps.config.publicUrl ?? requestOrigin;
  let sent = 0;
  for (const m of members) {
    if (!(await mailOptedIn(deps.kv, r.org, m.user))) continue;
    try {
      await deps.mail.send({
        to: m.email,
        subject: `${
          r.kind === "weekly" ? "Weekly" : "Monthly"
        } report: ${r.touchpoint_name}, ${r.period_key}`,
        text: reportText(r, origin),
      });
      sent++;
    } catch (err) {
      deps.log.error("report mail failed", { org: r.org, report: r.id, error: mailFailure(err) });
    }
  }
  return sent;
}
