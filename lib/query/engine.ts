/** Engine implementation (first version: answers from the raw events with the reference code). */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { EnvName, StoredEvent, StoredHit, Verification, VerificationRecord } from "../store/records.ts";
import type { Engine } from "./api.ts";
import {
  naiveAggregate,
  naiveFunnel,
  naiveHitsAggregate,
  naivePaths,
  naiveRetention,
  naiveSessions,
} from "./naive.ts";
import type { Scope } from "./types.ts";

async function rawEvents(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  from: number,
  to: number,
): Promise<StoredEvent[]> {
  const prefix = keys.rawEvents(org, env);
  const out: StoredEvent[] = [];
  for await (
    const e of kv.list<StoredEvent>({ start: [...prefix, from], end: [...prefix, to] }, { batchSize: 1000 })
  ) {
    out.push(e.value);
  }
  return out;
}

async function rawHits(kv: Deno.Kv, org: string, env: EnvName): Promise<StoredHit[]> {
  const out: StoredHit[] = [];
  for await (const e of kv.list<StoredHit>({ prefix: keys.rawHits(org, env) }, { batchSize: 1000 })) {
    out.push(e.value);
  }
  return out;
}

async function verifications(kv: Deno.Kv, org: string, ids: string[]): Promise<Map<string, Verification>> {
  const out = new Map<string, Verification>();
  for (let i = 0; i < ids.length; i += 10) {
    const got = await kv.getMany<VerificationRecord[]>(
      ids.slice(i, i + 10).map((id) => keys.verification(org, id)),
    );
    got.forEach((g, j) => g.value && out.set(ids[i + j], g.value.outcome));
  }
  return out;
}

export function createEngine(deps: Deps): Engine {
  const { kv } = deps;
  const load = (s: Scope) => rawEvents(kv, s.org, s.env, s.from, s.to);
  return {
    aggregate: async (s, o) => naiveAggregate(await load(s), s, o),
    aggregateMany: async (s, os) => {
      const evs = await load(s);
      return os.map((o) => naiveAggregate(evs, s, o));
    },
    hitsAggregate: async (s, o) => {
      const hits = await rawHits(kv, s.org, s.env);
      return naiveHitsAggregate(hits, await verifications(kv, s.org, hits.map((h) => h.id)), s, o);
    },
    sessions: async (s, o) => {
      const all = naiveSessions(await load(s), s, o?.matchFilters ?? true);
      return o?.limit === undefined ? all : all.slice(Math.max(0, all.length - o.limit)).reverse();
    },
    funnel: async (s, o) => naiveFunnel(await load(s), s, o),
    paths: async (s, o) => naivePaths(await load(s), s, o),
    retention: async (s, o) => naiveRetention(await load(s), s, o),
    propertyKeys: async (s, eventType) => {
      const counts = new Map<string, { events: number; visitors: Set<string> }>();
      for (const e of await load(s)) {
        if (eventType && e.event_type !== eventType) continue;
        if (
          !(s.traffic ?? ["human"]).includes(e.traffic) || (s.touchpoint && e.touchpoint !== s.touchpoint)
        ) continue;
        for (const k of Object.keys(e.properties)) {
          let c = counts.get(k);
          if (!c) counts.set(k, c = { events: 0, visitors: new Set() });
          c.events++;
          if (e.traffic === "human") c.visitors.add(e.anonymous_id);
        }
      }
      return [...counts].map(([key, c]) => ({ key, events: c.events, visitors: c.visitors.size }))
        .sort((a, b) => b.events - a.events || (a.key < b.key ? -1 : 1));
    },
    freshness: async (org, env) => {
      let last: number | null = null, raw = 0;
      for await (
        const e of kv.list<StoredEvent>({ prefix: keys.rawEvents(org, env) }, { reverse: true, limit: 1 })
      ) {
        last = e.value.received_at;
      }
      for await (const _ of kv.list({ prefix: keys.rawEvents(org, env) }, { batchSize: 1000 })) raw++;
      return { last_event_at: last, raw_events: raw, parts: 0 };
    },
  };
}
