import assert from "node:assert/strict";
import fc from "fast-check";
import { buildFamily4, buildFamily6, DEEP, NO_PLACE, placeCode } from "../../../lib/enrich/place_index.ts";
import { decodeIndex, encodeIndex } from "../../../lib/enrich/geo_file.ts";
import { stringAt, stringTable } from "../../../lib/enrich/string_table.ts";

/** The plain answer: the code of the last range starting at or before the address. */
function naive(starts: number[][], codes: number[], key: number[]): number {
  let found = NO_PLACE;
  starts.forEach((s, i) => {
    for (let k = 0; k < s.length; k++) {
      if (s[k] !== key[k]) {
        if (s[k] < key[k]) found = codes[i];
        return;
      }
    }
    found = codes[i];
  });
  return found;
}

const cmpWords = (a: number[], b: number[]) => {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] - b[k];
  return 0;
};
const word = fc.integer({ min: 0, max: 0xffffffff });
const code = fc.integer({ min: 2, max: 6 }); // few codes, so neighbours often merge

Deno.test("place index: IPv4 answers the last range starting at or before the address, across 16-bit buckets", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.oneof(word, fc.integer({ min: 0, max: 0x3ffff })), { minLength: 1, maxLength: 60 }),
      fc.array(code, { minLength: 60, maxLength: 60 }),
      fc.array(fc.oneof(word, fc.integer({ min: 0, max: 0x3ffff })), { minLength: 20, maxLength: 20 }),
      (rawStarts, codes, probes) => {
        const starts = [...rawStarts].sort((a, b) => a - b);
        const cs = starts.map((_, i) => codes[i]);
        const fam = buildFamily4(Uint32Array.from(starts), Uint32Array.from(cs));
        for (const ip of [...probes, ...starts, ...starts.map((s) => Math.max(0, s - 1))]) {
          assert.equal(
            placeCode(fam, null, { v: 4, n: ip }),
            naive(starts.map((s) => [s]), cs, [ip]),
            `at ${ip}`,
          );
        }
      },
    ),
  );
});

Deno.test("place index: IPv6 ranges starting inside a /64 are answered exactly (deep table), others by /64 rows", () => {
  // Starts share a few prefixes so that /64 blocks hold several ranges, some deep, some not.
  const start = fc.tuple(
    fc.constantFrom(0x20010db8, 0x2a000000),
    fc.integer({ min: 0, max: 3 }),
    fc.oneof(fc.constant(0), word),
    fc.oneof(fc.constant(0), word),
  );
  fc.assert(
    fc.property(
      fc.uniqueArray(start, { minLength: 1, maxLength: 40, comparator: (a, b) => cmpWords(a, b) === 0 }),
      fc.array(code, { minLength: 40, maxLength: 40 }),
      fc.array(start, { minLength: 20, maxLength: 20 }),
      (rawStarts, codes, probes) => {
        const starts = [...rawStarts].sort(cmpWords);
        const cs = starts.map((_, i) => codes[i]);
        const fam = buildFamily6(Uint32Array.from(starts.flat()), Uint32Array.from(cs));
        const near = starts.flatMap((
          s,
        ) => [s, [s[0], s[1], s[2], s[3] === 0 ? 0 : s[3] - 1], [s[0], s[1] + 1, 0, 0]]);
        for (const ip of [...probes, ...near]) {
          const got = placeCode(null, fam, { v: 6, words: ip as [number, number, number, number] });
          assert.notEqual(got, DEEP);
          assert.equal(got, naive(starts, cs, ip), `at ${ip.map((w) => w.toString(16)).join(":")}`);
        }
      },
    ),
  );
});

Deno.test("geo index file: typed arrays and strings come back as they went in, arrays as views of the file", () => {
  const value = {
    a: Uint32Array.from([1, 2, 0xffffffff]),
    nested: {
      b: Uint16Array.from([7]),
      c: Uint8Array.from([1, 2, 3]),
      names: stringTable(["", "Zürich", "Ōsaka"]),
    },
    list: ["US", "DE"],
    none: null,
  };
  const bytes = encodeIndex([{ name: "x.mmdb", size: 1, mtime: 2 }], value);
  const back = decodeIndex(bytes) as { sources: unknown; value: typeof value };
  assert.deepEqual(back.sources, [{ name: "x.mmdb", size: 1, mtime: 2 }]);
  assert.deepEqual(back.value, value);
  assert.equal(back.value.a.buffer, bytes.buffer);
  assert.equal(stringAt(back.value.nested.names, 1), "Zürich");
  assert.equal(decodeIndex(new TextEncoder().encode("not an index at all")), null);
});
