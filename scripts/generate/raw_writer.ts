/**
 * Writes generated records as ingest stores them: each raw record with its dedupe key, checked absent and
 * set in the same atomic commit (lib/ingest/commit_group.ts). So writing a site twice, or importing the same
 * ids later, stores nothing twice. Many records per commit and several commits in flight keep it fast.
 */
import { keys } from "../../lib/store/keys.ts";
import { packEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent, StoredHit } from "../../lib/store/records.ts";
import { WEB_DEDUPE_MS } from "../../lib/ingest/web.ts";
import { HIT_DEDUPE_MS } from "../../lib/ingest/hits.ts";

type Kind = "events" | "hits";

interface RawRecord {
  kind: Kind;
  org: string;
  id: string;
  receivedAt: number;
  key: Deno.KvKey;
  value: unknown;
  dedupeMs: number;
}

/**
 * KV allows 100 checks per commit (one per record). A generated record packs to under 2 KB, so 100 stay far
 * below KV's 800 KiB per commit.
 */
export const MAX_PER_COMMIT = 100;
const IN_FLIGHT = 8;

export class RawWriter {
  private batch: RawRecord[] = [];
  private flying: Promise<void>[] = [];
  readonly stored: Record<Kind, number> = { events: 0, hits: 0 };
  readonly duplicates: Record<Kind, number> = { events: 0, hits: 0 };

  constructor(private kv: Deno.Kv, private perCommit = MAX_PER_COMMIT) {
    if (perCommit < 1 || perCommit > MAX_PER_COMMIT) throw new RangeError(`perCommit: 1..${MAX_PER_COMMIT}`);
  }

  event(e: StoredEvent): Promise<void> {
    return this.add({
      kind: "events",
      org: e.org,
      id: e.id,
      receivedAt: e.received_at,
      key: keys.rawEvent(e.org, e.env, e.received_at, e.id),
      value: packEvent(e),
      dedupeMs: WEB_DEDUPE_MS,
    });
  }

  hit(h: StoredHit): Promise<void> {
    return this.add({
      kind: "hits",
      org: h.org,
      id: h.id,
      receivedAt: h.received_at,
      key: keys.rawHit(h.org, h.env, h.received_at, h.id),
      value: h,
      dedupeMs: HIT_DEDUPE_MS,
    });
  }

  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.flying.splice(0));
  }

  private async add(r: RawRecord): Promise<void> {
    this.batch.push(r);
    if (this.batch.length >= this.perCommit) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.batch.length) {
      this.flying.push(this.write(this.batch));
      this.batch = [];
    }
    if (this.flying.length >= IN_FLIGHT) await Promise.all(this.flying.splice(0));
  }

  /** The whole batch in one commit; when some ids are stored already, only the others (then one by one). */
  private async write(batch: RawRecord[]): Promise<void> {
    if (await this.commit(batch)) return this.count(batch, batch);
    const rest = await this.absent(batch);
    if (rest.length && await this.commit(rest)) return this.count(batch, rest);
    // a record stored between the read and the commit (another writer): each decides alone
    const one: RawRecord[] = [];
    for (const r of rest) if (await this.commit([r])) one.push(r);
    this.count(batch, one);
  }

  private async commit(records: RawRecord[]): Promise<boolean> {
    const op = this.kv.atomic();
    for (const r of records) {
      const dedupe = keys.dedupe(r.org, r.id);
      op.check({ key: dedupe, versionstamp: null })
        .set(dedupe, r.receivedAt, { expireIn: r.dedupeMs })
        .set(r.key, r.value);
    }
    return (await op.commit()).ok;
  }

  /** The records whose dedupe key is not in KV (getMany reads at most 10 keys at a time). */
  private async absent(records: RawRecord[]): Promise<RawRecord[]> {
    const out: RawRecord[] = [];
    for (let i = 0; i < records.length; i += 10) {
      const slice = records.slice(i, i + 10);
      const found = await this.kv.getMany(slice.map((r) => keys.dedupe(r.org, r.id)));
      slice.forEach((r, j) => found[j].versionstamp === null && out.push(r));
    }
    return out;
  }

  /** Of a batch, those in `stored` were written; the others were there already. */
  private count(batch: RawRecord[], stored: RawRecord[]): void {
    const written = new Set(stored);
    for (const r of batch) (written.has(r) ? this.stored : this.duplicates)[r.kind]++;
  }
}
