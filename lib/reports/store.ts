/**
 * Reports in KV, one key per (touchpoint, kind, period). An instance that wants to generate a report first
 * claims its key with an atomic check that nothing (or only a lapsed claim) is there; the finished report
 * replaces the claim with a second check, so duplicated or retried cron runs store one report, and a
 * complete report is never written again.
 */
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import type { Report, ReportClaim, ReportKind, ReportSlot } from "./types.ts";

/** How long a claim stands before another instance may take over (a crashed run). */
export const CLAIM_MS = 5 * 60_000;

export const reportId = (kind: ReportKind, periodKey: string, touchpoint: string) =>
  `${kind}-${periodKey}-${touchpoint}`;

export type Claimed =
  | { state: "claimed"; claim: ReportClaim; versionstamp: string }
  | { state: "complete"; report: Report }
  | { state: "busy" };

export async function claimReport(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  id: string,
  now: number,
): Promise<Claimed> {
  const key = keys.report(org, env, id);
  const cur = await kv.get<ReportSlot>(key);
  const v = cur.value;
  if (v?.state === "complete") return { state: "complete", report: stripState(v) };
  if (v?.state === "running" && v.until > now) return { state: "busy" };
  const claim: ReportClaim = { state: "running", holder: crypto.randomUUID(), until: now + CLAIM_MS };
  const res = await kv.atomic().check(cur).set(key, claim).commit();
  if (!res.ok) return { state: "busy" }; // another instance claimed it between our read and write
  return { state: "claimed", claim, versionstamp: res.versionstamp };
}

/** Stores the finished report in place of our claim; false when the claim was lost (it lapsed and was taken). */
export async function completeReport(kv: Deno.Kv, report: Report, versionstamp: string): Promise<boolean> {
  const key = keys.report(report.org, report.env, report.id);
  const res = await kv.atomic()
    .check({ key, versionstamp })
    .set(key, { ...report, state: "complete" })
    .commit();
  return res.ok;
}

/** Gives a claim back (generation failed), so the next run may try again at once. */
export async function releaseClaim(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  id: string,
  versionstamp: string,
): Promise<void> {
  const key = keys.report(org, env, id);
  await kv.atomic().check({ key, versionstamp }).delete(key).commit();
}

function stripState(v: ReportSlot & { state: "complete" }): Report {
  const { state: _, ...report } = v;
  return report as Report;
}

export async function getReport(kv: Deno.Kv, org: string, env: EnvName, id: string): Promise<Report | null> {
  const r = await kv.get<ReportSlot>(keys.report(org, env, id));
  return r.value?.state === "complete" ? stripState(r.value) : null;
}

/** Complete reports of an organization's environment, newest period first (then weekly before monthly). */
export async function listReports(kv: Deno.Kv, org: string, env: EnvName): Promise<Report[]> {
  const out: Report[] = [];
  for await (const e of kv.list<ReportSlot>({ prefix: keys.reports(org, env) })) {
    if (e.value.state === "complete") out.push(stripState(e.value));
  }
  return out.sort((a, b) =>
    b.scope.period!.to.localeCompare(a.scope.period!.to) || b.kind.localeCompare(a.kind) ||
    a.touchpoint_name.localeCompare(b.touchpoint_name)
  );
}
