import assert from "node:assert/strict";
import { listQuarantined, listReadable } from "../../../lib/store/readable.ts";
import { keys } from "../../../lib/store/keys.ts";
import { memoryLog } from "../../../lib/log.ts";

/** A value KV stores but cannot read back (V8's deserializer gives up near 2,700 levels). */
function unreadable(): unknown {
  let v: unknown = 1;
  for (let i = 0; i < 3_000; i++) v = { a: v };
  return v;
}

Deno.test("listReadable: entries KV cannot read, or the decoder refuses, are moved aside; the rest are listed in order", async () => {
  const kv = await Deno.openKv(":memory:");
  const prefix = keys.rawEvents("org1", "production");
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const rows: [number, string, unknown][] = [
    [1000, id(1), { ok: 1 }],
    [1000, id(2), unreadable()], // same time as a good one before it
    [1000, id(3), { ok: 3 }],
    [2000, id(4), unreadable()],
    [2000, id(5), { bad: "layout" }], // readable, but not ours
    [3500, id(6), { ok: 6 }],
    [3500, "x", unreadable()], // not a UUID: the search is by character
  ];
  for (const [t, i, v] of rows) await kv.set([...prefix, t, i], v);
  const log = memoryLog();
  const decode = (v: unknown) => {
    if (typeof (v as { ok?: unknown }).ok !== "number") throw new Error("no ok field");
    return v as { ok: number };
  };
  const seen = [];
  for await (const e of listReadable(kv, { prefix }, { org: "org1", decode, log, now: 42, batchSize: 3 })) {
    seen.push(e.value.ok);
  }
  assert.deepEqual(seen, [1, 3, 6]);
  const q = await listQuarantined(kv, "org1");
  assert.equal(q.count, 4);
  assert.deepEqual(q.records.map((r) => r.key.slice(3)), [[1000, id(2)], [2000, id(4)], [2000, id(5)], [
    3500,
    "x",
  ]]);
  assert.match(q.records[0].reason, /KV cannot read the value back/);
  assert.deepEqual(q.records[2].value, { bad: "layout" }); // kept when it could be read
  assert.equal(q.records[2].found_at, 42);
  assert.equal(log.lines.filter((l) => l.includes("record quarantined")).length, 4);
  // gone from the listing: a plain kv.list reads the prefix again
  const left = [];
  for await (const e of kv.list({ prefix })) left.push(e.key.slice(3));
  assert.deepEqual(left, [[1000, id(1)], [1000, id(3)], [3500, id(6)]]);
  kv.close();
});

Deno.test("listReadable: a range and a limit are kept across a quarantine", async () => {
  const kv = await Deno.openKv(":memory:");
  const prefix = keys.rawHits("org1", "production");
  for (let t = 1; t <= 6; t++) await kv.set([...prefix, t, `h${t}`], t === 3 ? unreadable() : { t });
  const got = [];
  for await (
    const e of listReadable(kv, { prefix, start: [...prefix, 2], end: [...prefix, 6] }, {
      org: "org1",
      decode: (v) => v as { t: number },
      log: memoryLog(),
      now: 0,
      limit: 2,
    })
  ) got.push(e.value.t);
  assert.deepEqual(got, [2, 4]);
  assert.equal((await listQuarantined(kv, "org1")).count, 1);
  kv.close();
});

Deno.test("listReadable: a bad entry another listing moved aside first (a tool's questions list the tail at once) is passed, not an error", async () => {
  const kv = await Deno.openKv(":memory:");
  const prefix = keys.rawEvents("org1", "production");
  for (let t = 1; t <= 4; t++) await kv.set([...prefix, t, `e${t}`], t === 2 ? unreadable() : { ok: t });
  // the other listing: when ours has found where the bad entry is (its second, careful failure), the other
  // has just moved it aside
  let failures = 0;
  const racing = new Proxy(kv, {
    get(target, name) {
      if (name !== "list") return Reflect.get(target, name).bind(target);
      return (...args: Parameters<Deno.Kv["list"]>) => {
        const it = target.list(...args);
        return (async function* () {
          try {
            yield* it;
          } catch (e) {
            if (++failures === 2) await target.delete([...prefix, 2, "e2"]);
            throw e;
          }
        })();
      };
    },
  });
  const decode = (v: unknown) => v as { ok: number };
  const seen = [];
  for await (const e of listReadable(racing, { prefix }, { org: "org1", decode, log: memoryLog(), now: 1 })) {
    seen.push(e.value.ok);
  }
  assert.deepEqual(seen, [1, 3, 4]);
  kv.close();
});
