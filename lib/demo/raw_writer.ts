/**
 * Writes generated records as ingest stores them, through ingest's own store (lib/store/commit_group.ts
 * storeGroups): each raw record with its dedupe key, checked absent in the same atomic commit. So writing a
 * site twice, or importing the same ids later, stores nothing twice. Several batches in flight keep it fast.
 */
import { keys } from "../store/keys.ts";
import { packEvent } from "../store/event_codec.ts";
import type { StoredEvent, StoredHit } from "../store/records.ts";
import {
  type Committer,
  createCommitter,
  type GroupRecord,
  MAX_COMMIT_RECORDS,
  RECORD_OVERHEAD_BYTES,
  storeGroups,
} from "../store/commit_group.ts";
import { WEB_DEDUPE_MS } from "../ingest/web.ts";
import { HIT_DEDUPE_MS } from "../ingest/hits.ts";

type Kind = "events" | "hits";

/** A generated record packs to under 2 KB: a bound for the group's size check. */
const RECORD_BYTES = 2_000 + RECORD_OVERHEAD_BYTES;
const IN_FLIGHT = 8;

export class RawWriter {
  private batch: GroupRecord[] = [];
  private kinds = new Map<GroupRecord, Kind>();
  private flying: Promise<void>[] = [];
  readonly stored: Record<Kind, number> = { events: 0, hits: 0 };
  readonly duplicates: Record<Kind, number> = { events: 0, hits: 0 };

  /** a group commit of the writer's own: it shares no commits with requests and leaves no pending markers */
  private committer: Committer;

  constructor(kv: Deno.Kv) {
    this.committer = createCommitter(kv);
  }

  event(e: StoredEvent): Promise<void> {
    const key = keys.rawEvent(e.org, e.env, e.received_at, e.id);
    return this.add("events", e.org, e.id, e.received_at, key, packEvent(e), WEB_DEDUPE_MS);
  }

  hit(h: StoredHit): Promise<void> {
    const key = keys.rawHit(h.org, h.env, h.received_at, h.id);
    return this.add("hits", h.org, h.id, h.received_at, key, h, HIT_DEDUPE_MS);
  }

  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.flying.splice(0));
  }

  private async add(
    kind: Kind,
    org: string,
    id: string,
    receivedAt: number,
    key: Deno.KvKey,
    value: unknown,
    dedupeMs: number,
  ): Promise<void> {
    // generated records carry no address; a hit's verification outcome is in its own record
    const r: GroupRecord = {
      org,
      id,
      receivedAt,
      key,
      value,
      bytes: RECORD_BYTES,
      dedupeMs,
      ip: null,
      verifyToken: null,
      outcome: null,
    };
    this.kinds.set(r, kind);
    this.batch.push(r);
    if (this.batch.length >= MAX_COMMIT_RECORDS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.batch.length) {
      const batch = this.batch;
      this.batch = [];
      this.flying.push(
        storeGroups(this.committer, batch, MAX_COMMIT_RECORDS).then((stored) => this.count(batch, stored)),
      );
    }
    if (this.flying.length >= IN_FLIGHT) await Promise.all(this.flying.splice(0));
  }

  /** Of a batch, those in `stored` were written; the others were there already. */
  private count(batch: GroupRecord[], stored: GroupRecord[]): void {
    const written = new Set(stored);
    for (const r of batch) {
      const kind = this.kinds.get(r)!;
      this.kinds.delete(r);
      (written.has(r) ? this.stored : this.duplicates)[kind]++;
    }
  }
}
