/**
 * Which event ids the organization's parts already hold, for the history import: a dedupe key lives 35 days
 * (IMPORT_DEDUPE_MS), and past it a compacted record has no raw key either, so the same line imported again
 * would be stored a second time. A line is looked up only in the parts whose placement time range holds its
 * own time (events: receive time; hits: timestamp), so an import into an organization with no parts for
 * those days reads nothing but the part listing; each part's id column is read once and a few are kept.
 */
import type { EnvName } from "../store/records.ts";
import { dayNumber } from "../store/keys.ts";
import { listParts, type PartKind, type PartMeta } from "../parts/store.ts";
import { partRawKeys } from "../parts/build.ts";

/** Parts whose ids are kept at once (a day's part of a 10M-event site holds ~30k ids: ~2 MB). */
const KEPT_PARTS = 16;

export class CompactedIds {
  /** per kind, the parts by UTC day of their placement range (a part holds one day's rows) */
  #parts = new Map<PartKind, Promise<Map<number, PartMeta[]>>>();
  #ids = new Map<string, Promise<Set<string>>>();
  constructor(private kv: Deno.Kv, private org: string, private env: EnvName) {}

  /**
   * Whether a part of `kind` holding time `at` holds `id` (lowercased, as stored). A part merged away while
   * the import runs (its chunks deleted) fails to read: the parts are listed again, once.
   */
  async has(kind: PartKind, at: number, id: string): Promise<boolean> {
    try {
      return await this.#has(kind, at, id);
    } catch {
      this.#parts.delete(kind);
      this.#ids.clear();
      return await this.#has(kind, at, id);
    }
  }

  async #has(kind: PartKind, at: number, id: string): Promise<boolean> {
    for (const meta of (await this.#partsOf(kind)).get(dayNumber(at)) ?? []) {
      if (at < meta.min_t || at > meta.max_t) continue;
      if ((await this.#idsOf(meta)).has(id)) return true;
    }
    return false;
  }

  #partsOf(kind: PartKind): Promise<Map<number, PartMeta[]>> {
    let parts = this.#parts.get(kind);
    if (!parts) {
      parts = listParts(this.kv, this.org, this.env, kind).then((all) => {
        const byDay = new Map<number, PartMeta[]>();
        for (const { meta } of all) {
          const last = Math.min(dayNumber(meta.max_t), dayNumber(meta.min_t) + 366); // one day, in practice
          for (let d = dayNumber(meta.min_t); d <= last; d++) byDay.set(d, [...byDay.get(d) ?? [], meta]);
        }
        return byDay;
      });
      this.#parts.set(kind, parts);
    }
    return parts;
  }

  #idsOf(meta: PartMeta): Promise<Set<string>> {
    let ids = this.#ids.get(meta.id);
    if (!ids) {
      ids = partRawKeys(this.kv, this.org, this.env, meta).then((raw) =>
        new Set(raw.map((k) => String(k.at(-1))))
      );
      if (this.#ids.size >= KEPT_PARTS) this.#ids.delete(this.#ids.keys().next().value!);
      this.#ids.set(meta.id, ids);
    }
    return ids;
  }
}
