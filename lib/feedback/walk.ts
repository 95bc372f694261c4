/**
 * How far the review fetch has read an app's store history, per lane (a source, and per country for the
 * public feed), in its own KV key: the status is rewritten without a check by the listing refresh, and a
 * lost position here would be reviews never fetched. See fetch_job.ts for how a run uses it.
 */
import { keys } from "../store/keys.ts";

/** A backlog still to read: older reviews than the newest pages a run takes first. */
export interface Backlog {
  /** The store's cursor of the next backlog page; null: the first page (a walk started over). */
  cursor: string | null;
  /**
   * Read to the last page of the history (a first connection, or a second backlog that began before the
   * first was drained); otherwise the backlog ends at its first page with nothing new.
   */
  to_end: boolean;
  /** Runs in a row in which the store refused this cursor (4xx): at 3 the walk starts over from the top. */
  refused: number;
}

export interface Walk {
  /** The history was read to its last page once, so a gap below the newest pages ends at stored reviews. */
  walked: boolean;
  backlog: Backlog | null;
}

export const NEW_WALK: Walk = { walked: false, backlog: null };

export function walkKey(org: string, app: string, lane: string): Deno.KvKey {
  return [...keys.feedbackWalks(org, app), lane];
}

export async function getWalk(kv: Deno.Kv, org: string, app: string, lane: string) {
  return await kv.get<Walk>(walkKey(org, app, lane));
}

function sameBacklog(a: Backlog, b: Backlog): boolean {
  return a.cursor === b.cursor && a.to_end === b.to_end;
}

/**
 * What to keep when another run (a second instance, the admin's "fetch now") wrote the walk since this
 * run read it. Neither position may be dropped unread: two different backlogs become one walk from the
 * top to the last page, which covers both (reviews are stored once, so reading some again costs pages only).
 */
export function mergeWalks(current: Walk, ours: Walk): Walk {
  const walked = current.walked || ours.walked;
  if (!current.backlog) return { walked, backlog: ours.backlog };
  if (!ours.backlog || sameBacklog(current.backlog, ours.backlog)) {
    return { walked, backlog: current.backlog };
  }
  return { walked, backlog: { cursor: null, to_end: true, refused: 0 } };
}

/** Saves a run's walk, merged with whatever another run wrote since `read`. */
export async function saveWalk(
  kv: Deno.Kv,
  read: Deno.KvEntryMaybe<Walk>,
  ours: Walk,
): Promise<void> {
  let entry = read;
  for (let attempt = 0; attempt < 5; attempt++) {
    const next = entry === read ? ours : mergeWalks(entry.value ?? NEW_WALK, ours);
    if ((await kv.atomic().check(entry).set(entry.key, next).commit()).ok) return;
    entry = await kv.get<Walk>(entry.key);
  }
  throw new Error("review walk: five conflicting writes in a row; try again");
}
