/** The data-freshness notice every answer carries: when the newest event or hit of this environment arrived. */
import type { AppContext } from "../context.ts";
import type { ReadPrincipal } from "./auth.ts";
import { latestArrival } from "./data.ts";

function ago(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return "less than a minute ago";
  if (min < 120) return `${min} minute${min === 1 ? "" : "s"} ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} hours ago`;
  return `${Math.round(h / 24)} days ago`;
}

export async function freshnessNotice(
  app: AppContext,
  p: ReadPrincipal,
  _touchpoint: string | null,
  now: number,
): Promise<string | null> {
  const at = await latestArrival(app, p.org.id, p.env);
  if (at === null) return `no data received yet in ${p.env}; answers fill in once the SDKs send events`;
  return `data fresh to ${new Date(at).toISOString()} (${ago(Math.max(0, now - at))})`;
}
