/**
 * How both ingest pipelines store: records are committed in groups, each record with its dedupe key
 * (checked absent in the same commit), plus ONE address record and ONE pending-verification marker (with its
 * queue message) per group. So a stored record always has its dedupe key, verification work is enqueued
 * exactly when its records land, and a retried batch is safe.
 */
import { DAY } from "../clock.ts";
import { keys } from "../store/keys.ts";
import type { VerificationRecord } from "../store/records.ts";
import { addPendingVerification } from "../jobs/verify.ts";

/** Addresses are kept 30 days, then cleared (KV expiry plus the hourly sweep). */
export const IP_RETENTION_MS = 30 * DAY;
/** KV allows 800 KiB per commit; groups stay well under it. */
export const MAX_GROUP_BYTES = 500_000;

export interface GroupRecord {
  org: string;
  id: string; // event_id: the dedupe key
  receivedAt: number;
  key: Deno.KvKey;
  value: unknown;
  bytes: number; // estimated stored size
  dedupeMs: number;
  ip: string | null;
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
  for (const r of group) if (r.ip) ips[r.id] = r.ip;
  if (Object.keys(ips).length) {
    op.set(keys.ipGroup(first.receivedAt, first.org, first.id), { at: first.receivedAt, ips }, {
      expireIn: IP_RETENTION_MS,
    });
  }
  const pending = group.filter((r) => r.verifyToken);
  if (pending.length) {
    addPendingVerification(op, first.id, {
      org: first.org,
      receivedAt: first.receivedAt,
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

/** The records whose dedupe key is not in KV yet (getMany reads at most 10 keys at a time). */
async function absent(kv: Deno.Kv, records: GroupRecord[]): Promise<GroupRecord[]> {
  const out: GroupRecord[] = [];
  for (let i = 0; i < records.length; i += 10) {
    const slice = records.slice(i, i + 10);
    const found = await kv.getMany(slice.map((r) => keys.dedupe(r.org, r.id)));
    slice.forEach((r, j) => found[j].versionstamp === null && out.push(r));
  }
  return out;
}

const commit = async (kv: Deno.Kv, group: GroupRecord[]) => (await addGroup(kv.atomic(), group).commit()).ok;

/**
 * Stores records (distinct ids) and returns those newly stored. A group whose check fails (some record is
 * stored already: a retry) is committed again without those; if that fails too (a concurrent identical
 * request), record by record, so each is stored exactly once.
 */
export async function storeGroups(
  kv: Deno.Kv,
  records: GroupRecord[],
  count: number,
): Promise<GroupRecord[]> {
  const stored: GroupRecord[] = [];
  for (const group of groups(records, count)) {
    if (await commit(kv, group)) {
      stored.push(...group);
      continue;
    }
    const rest = await absent(kv, group);
    if (rest.length && await commit(kv, rest)) {
      stored.push(...rest);
      continue;
    }
    for (const r of rest) if (await commit(kv, [r])) stored.push(r);
  }
  return stored;
}
