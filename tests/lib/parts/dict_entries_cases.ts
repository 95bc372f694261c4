/**
 * Dictionary entries read one at a time from a part's stored bytes (lib/parts/dict_entries.ts), and a period
 * edge's rows taken with a dictionary of just their strings (rollup/reader.ts rowsOfColumns): the same values
 * row for row as the whole dictionary gives.
 */
import assert from "node:assert/strict";
import { decodeBatch, encodeBatch } from "../../../lib/parts/codec.ts";
import { type Batch, numAt, strAt, type StrCol } from "../../../lib/parts/columns.ts";
import { dictEntries, jsonStringBounds } from "../../../lib/parts/dict_entries.ts";
import { rowsOfColumns } from "../../../lib/query/rollup/reader.ts";

const enc = new TextEncoder();

/** A seeded generator (mulberry32): runs are repeatable. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const PIECES = ["a", "/p", '"', "\\", '\\"', "é", "日本", "😀", "\n", "\u0001", " ", ",", "[", "]", "x y"];
const word = (r: () => number) =>
  Array.from({ length: Math.floor(r() * 6) }, () => PIECES[Math.floor(r() * PIECES.length)]).join("");

Deno.test("jsonStringBounds: each entry of a JSON array of strings, quotes and escapes included", () => {
  const r = rng(7);
  for (let run = 0; run < 200; run++) {
    const dict = [...new Set(Array.from({ length: Math.floor(r() * 40) }, () => word(r)))];
    const json = enc.encode(run % 2 ? JSON.stringify(dict) : JSON.stringify(dict, null, 1));
    const at = jsonStringBounds(json)!;
    assert.equal(at.length, dict.length * 2);
    const entry = dictEntries({ kind: "str", dict: [], codes: new Uint8Array(0), dictJson: json } as StrCol)!;
    dict.forEach((d, k) => assert.equal(entry(k + 1), d));
  }
  for (const bad of ["", "{}", "[1]", '["a",2]', '["a"', '["a\\"]', '["a" "b"]']) {
    assert.equal(jsonStringBounds(enc.encode(bad)), null, bad);
  }
});

Deno.test("rowsOfColumns: a part's rows taken with only their strings give the same values", async () => {
  const r = rng(11);
  for (let run = 0; run < 30; run++) {
    const n = 1 + Math.floor(r() * 3000);
    const strs = (size: number) => {
      const dict = [...new Set(Array.from({ length: size }, () => word(r) + Math.floor(r() * 1e6)))];
      const codes = new Uint32Array(n).map(() => (r() < 0.1 ? 0 : 1 + Math.floor(r() * dict.length)));
      return { kind: "str" as const, dict, codes };
    };
    const whole: Batch = {
      n,
      cols: {
        // "anon" is stored packed, "vid" and "ref" as JSON (codec.ts PACKED)
        anon: strs(1 + Math.floor(r() * 200)),
        vid: strs(1 + Math.floor(r() * n)),
        ref: strs(1 + Math.floor(r() * 50)),
        t: { kind: "num", values: Float64Array.from({ length: n }, () => Math.floor(r() * 1e9)) },
        d: { kind: "num", values: Float64Array.from({ length: n }, () => (r() < 0.2 ? NaN : r())) },
      },
    };
    const e = await encodeBatch(whole);
    const rows = Array.from({ length: n }, (_, i) => i).filter(() => r() < 0.3).reverse();
    const taken = rowsOfColumns(await decodeBatch({ n, columns: e.columns }, e.blob), rows);
    assert.equal(taken.n, rows.length);
    for (const [name, c] of Object.entries(whole.cols)) {
      const t = taken.cols[name];
      rows.forEach((i, k) => {
        if (c.kind === "num") assert.equal(numAt(t as typeof c, k), numAt(c, i), `${name} row ${i}`);
        else assert.equal(strAt(t as StrCol, k), strAt(c, i), `${name} row ${i}`);
      });
      // only the strings the rows use are made (all of them when the dictionary had to be read whole)
      if (c.kind === "str") {
        const used = new Set(rows.map((i) => c.codes[i]).filter((x) => x > 0));
        assert.equal((t as StrCol).dict.length, used.size, name);
      }
    }
  }
});
