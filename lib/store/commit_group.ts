/**
 * How both ingest pipelines store: records are committed in groups, each record with its dedupe key
 * (checked absent in the same commit), plus ONE address record and ONE pending-verification marker per
 * group. So a stored record always has its dedupe key, verification work is recorded exactly when its
 * records land, and a retried batch is safe. No commit holds a queue message (KV Connect refuses them): a
 * landed group's marker is nudged through the queue afterwards, where there is one.
 */
import { keys } from "./keys.ts";
import type { VerificationRecord } from "./records.ts";
import { addPendingVerification, nudgeVerification, VerifyQueue } from "./pending_verification.ts";
import { IP_RETENTION_MS } from "./address_retention.ts";
import { readMany } from "./read_many.ts";
/** KV allows 800 KiB per commit; groups stay well under it. */
export const MAX_GROUP_BYTES = 500_000;
/** A record's share of its commit beside its value: its keys, dedupe key, address and marker entries. */
export const RECORD_OVERHEAD_BYTES = 600;

export interface GroupRecord {
  org: string;
  id: string; // event_id: the dedupe key
  receivedAt: number;
  key: Deno.KvKey;
  value: unknown;
  bytes: number; // stored size with its share of the commit, an upper bound (./stored_size.ts)
  dedupeMs: number;
  ip: string | null;
  /** the app clock when stored: the address record then expires its retention after the record's own time */
  storedAt?: number;
  /** the record's own time when it is not receivedAt (a crawler hit's timestamp): its address is kept 30 days from it */
  at?: number;
  /** crawler token when the address can be checked: a pending verification for the group's marker */
  verifyToken: string | null;
  /** an outcome known at arrival (no address, or no documented check) */
  outcome: VerificationRecord | null;
}

function addGroup(op: Deno.AtomicOperation, group: GroupRecord[]): Deno.AtomicOperation {
  for (const r of group) {
    op.check({ key: keys.dedupe(r.org, r.id), versionstamp: null })
      .set(keys.dedupe(r.org, r.id), r.receivedAt, { expireIn: r.dedupeMs })
      .set(r.key, r.value);
    if (r.outcome) op.set(keys.verification(r.org, r.id), r.outcome);
  }
  // A group's first record is stored exactly once (its check passed), so its id names the group.
  const first = group[0];
  const ips: Record<string, string> = {};
  // The group's addresses go when its oldest address's 30 days end (a group of imported hits spans up to 6 days,
  // live hits up to 7): the record is keyed and swept by that time, so no address outlives its own 30 days.
  let at = Infinity;
  for (const r of group) if (r.ip) ips[r.id] = r.ip, at = Math.min(at, r.at ?? r.receivedAt);
  if (Object.keys(ips).length) {
    // counted from that time (an imported old record's address goes when its 30 days end), min 1 ms
    const expireIn = first.storedAt === undefined
      ? IP_RETENTION_MS
      : Math.max(1, Math.min(IP_RETENTION_MS, at + IP_RETENTION_MS - first.storedAt));
    op.set(keys.ipGroup(at, first.org, first.id), { at, ips }, { expireIn });
  }
  const pending = group.filter((r) => r.verifyToken);
  if (pending.length) {
    addPendingVerification(op, first.id, {
      org: first.org,
      receivedAt: first.receivedAt,
      ...(Number.isFinite(at) && at !== first.receivedAt ? { addressAt: at } : {}),
      grouped: true,
      hits: pending.map((r) => [r.id, r.verifyToken!]),
    });
  }
  return op;
}

/** Splits records into groups of at most `count` records and MAX_GROUP_BYTES. */
function groups(records: GroupRecord[], count: number): GroupRecord[][] {
  const out: GroupRecord[][] = [];
  let cur: GroupRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    if (cur.length && (cur.length >= count || bytes + r.bytes > MAX_GROUP_BYTES)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(r);
    bytes += r.bytes;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** The records whose dedupe key is not in KV yet. */
async function absent(kv: Deno.Kv, records: GroupRecord[]): Promise<GroupRecord[]> {
  const found = await readMany(kv, records.map((r) => keys.dedupe(r.org, r.id)));
  return records.filter((_, j) => found[j].versionstamp === null);
}

const commit = async (kv: Deno.Kv, group: GroupRecord[]) => (await addGroup(kv.atomic(), group).commit()).ok;

/** KV allows 100 checks per commit: the most records one merged commit holds. */
export const MAX_COMMIT_RECORDS = 100;

interface Waiting {
  group: GroupRecord[];
  done: (ok: boolean) => void;
}

/**
 * Commits in flight at once. More than one keeps KV busy while the next commit is being built (one at a
 * time cut crawler-hit throughput by half: their groups of 100 cannot merge); too many leaves nothing
 * waiting to merge (8 lost a third of web-event throughput in bench/ingest.ts). 2 to 4 measured best.
 */
export const IN_FLIGHT = 3;

/**
 * Group commit: while commits are in flight, groups from other requests wait and then go together in the
 * next one. KV (SQLite) commits one at a time, and a few large commits cost far less than many small ones.
 * Groups sharing an id (concurrent identical requests) never go in the same commit, so each id's check
 * still decides alone. A merged commit that fails answers false to each of its groups, which then take
 * the careful path on their own. The write paths share the process's one (createCommitter, called by
 * createContext in lib/context.ts), so that requests running at once share commits.
 */
export class Committer {
  #waiting: Waiting[] = [];
  #inFlight = 0;
  constructor(
    readonly kv: Deno.Kv,
    /** where landed groups' markers are nudged: the process's one (createContext) */
    readonly queue: VerifyQueue,
    private maxInFlight: number = IN_FLIGHT,
  ) {}

  submit(group: GroupRecord[]): Promise<boolean> {
    return new Promise((done) => {
      this.#waiting.push({ group, done });
      this.#next();
    });
  }

  #next(): void {
    if (this.#inFlight >= this.maxInFlight || !this.#waiting.length) return;
    this.#inFlight++;
    const batch = this.#take();
    this.#commit(batch).then((ok) => {
      this.#inFlight--;
      for (const w of batch) w.done(ok);
      this.#next();
    });
  }

  async #commit(batch: Waiting[]): Promise<boolean> {
    try {
      const op = this.kv.atomic();
      for (const w of batch) addGroup(op, w.group);
      return (await op.commit()).ok;
    } catch {
      return false; // the careful path retries each group and reports its own error
    }
  }

  /** The waiting groups that fit one commit: by record count, bytes, and no id twice. */
  #take(): Waiting[] {
    const out: Waiting[] = [], rest: Waiting[] = [];
    const ids = new Set<string>();
    let count = 0, bytes = 0;
    for (const w of this.#waiting) {
      if (count >= MAX_COMMIT_RECORDS) {
        rest.push(w);
        continue;
      }
      const size = w.group.reduce((n, r) => n + r.bytes, 0);
      const fits = count + w.group.length <= MAX_COMMIT_RECORDS && bytes + size <= MAX_GROUP_BYTES;
      if (out.length && (!fits || w.group.some((r) => ids.has(`${r.org}|${r.id}`)))) {
        rest.push(w);
        continue;
      }
      out.push(w);
      count += w.group.length;
      bytes += size;
      for (const r of w.group) ids.add(`${r.org}|${r.id}`);
    }
    this.#waiting = rest;
    return out;
  }
}

/**
 * The group commit of a store: createContext makes the process's one, with the process's queue. A writer
 * that never leaves a pending marker (the demo site's, a test) may leave `queue` out.
 */
export function createCommitter(kv: Deno.Kv, queue: VerifyQueue = new VerifyQueue(kv)): Committer {
  return new Committer(kv, queue);
}

/**
 * Stores records (distinct ids) and returns those newly stored. Groups go through the group commit; a
 * group whose commit fails (some record is stored already: a retry) is committed again alone without
 * those; if that fails too (a concurrent identical request), record by record, so each is stored once.
 * A commit that throws (KV failing, or a record KV refuses) does not stop the others: every record that
 * can be stored is, with its dedupe key, and the first error is thrown at the end (a 500; the retry is safe).
 * `committer` is the process's one (createContext); a bulk writer that shares no commits with requests (the
 * demo site's writer) holds one of its own for all its batches.
 */
export async function storeGroups(
  committer: Committer,
  records: GroupRecord[],
  count: number,
): Promise<GroupRecord[]> {
  const { kv } = committer;
  let error: unknown = null;
  const tryCommit = async (group: GroupRecord[]) => {
    try {
      return await commit(kv, group);
    } catch (e) {
      error ??= e;
      return false;
    }
  };
  const parts = groups(records, Math.min(count, MAX_COMMIT_RECORDS));
  // the groups as committed: each landed with its own marker, named by its first record
  const results = await Promise.all(parts.map(async (group): Promise<GroupRecord[][]> => {
    if (await committer.submit(group)) return [group];
    const rest = await absent(kv, group);
    if (rest.length && await tryCommit(rest)) return [rest];
    const one: GroupRecord[][] = [];
    for (const r of rest) if (await tryCommit([r])) one.push([r]);
    return one;
  }));
  const landed = results.flat();
  for (const g of landed) {
    if (g.some((r) => r.verifyToken)) nudgeVerification(committer.queue, g[0].org, g[0].id);
  }
  if (error) throw error;
  return landed.flat();
}
