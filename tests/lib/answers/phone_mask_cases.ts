/**
 * Issue 32, finding 4: phone numbers are masked wherever a person's data can hide (running text, paths,
 * element ids, property values, labels), in the formats people write them; dates, times, UUIDs, plain ids
 * and short numbers are left as they are. Property-tested over generated numbers and places.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { finalizeAnswer } from "../../../lib/answers/rules.ts";
import { checkAnswer } from "../../../lib/answers/check.ts";
import { hasContactDetails, maskText, PHONE_MASK } from "../../../lib/answers/privacy.ts";

Deno.test("phone mask: the issue's examples are masked", () => {
  assert.equal(maskText("/call/4155550134"), `/call/${PHONE_MASK}`);
  assert.equal(maskText("/tel/415-555-0134"), `/tel/${PHONE_MASK}`);
  assert.equal(maskText("/tel/415.555.0134"), `/tel/${PHONE_MASK}`);
  assert.equal(maskText("/tel/00494155550134"), `/tel/${PHONE_MASK}`);
  assert.equal(maskText("#f-4155550134"), `#f-${PHONE_MASK}`);
  assert.equal(maskText("f-4155550134"), `f-${PHONE_MASK}`);
  assert.ok(hasContactDetails("/call/4155550134?x=1"));
});

Deno.test("phone mask: numbers whose separators a URL path escapes are masked (found in review)", () => {
  assert.equal(maskText("/call/+49%20151%201234%205678"), `/call/${PHONE_MASK}`);
  assert.equal(maskText("/t/(030)%201234%205678"), `/t/${PHONE_MASK}`);
  assert.equal(maskText("/t/%28030%29%201234%205678"), `/t/${PHONE_MASK}`);
  assert.equal(maskText("/call/0151%2012345678"), `/call/${PHONE_MASK}`);
  assert.equal(maskText("/call/%2B4915112345678"), `/call/${PHONE_MASK}`);
  assert.equal(maskText("/call/+49+151+1234+5678"), `/call/${PHONE_MASK}`);
  assert.equal(maskText("/a%20b/c%2Dd"), "/a%20b/c%2Dd", "nothing masked: the path is shown as stored");
  assert.equal(maskText("/product/1234567890%20x"), "/product/1234567890%20x", "a plain id stays");
});

const d = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
const from2to9 = fc.integer({ min: 2, max: 9 }).map(String);
/** North American numbers: area code and exchange start 2-9. */
const nanp = fc.tuple(from2to9, d(2), from2to9, d(2), d(4)).map(([a, b, c, e, f]) => [a + b, c + e, f]);
const nanpWritten = nanp.chain(([area, ex, line]) =>
  fc.constantFrom(
    `${area}${ex}${line}`,
    `${area}-${ex}-${line}`,
    `${area}.${ex}.${line}`,
    `${area} ${ex} ${line}`,
    `(${area}) ${ex}-${line}`,
    `+1 ${area} ${ex} ${line}`,
    `+1${area}${ex}${line}`,
    `1-${area}-${ex}-${line}`,
    `001${area}${ex}${line}`,
  )
);
/** International numbers written with + or 00, and national numbers with their trunk 0. */
const cc = fc.constantFrom("49", "44", "33", "31", "61", "34");
const international = fc.tuple(
  cc,
  fc.integer({ min: 1, max: 9 }).map(String),
  d(3),
  d(4),
  d(0).chain(() => d(2)),
)
  .chain(([c, a, b, e, f]) =>
    fc.constantFrom(
      `+${c} ${a}${f} ${b} ${e}`,
      `+${c}${a}${f}${b}${e}`,
      `00${c}${a}${f}${b}${e}`,
      `00${c} ${a}${f} ${b}-${e}`,
    )
  );
const national = fc.tuple(fc.integer({ min: 1, max: 9 }).map(String), d(2), d(3), d(4))
  .chain(([a, b, c, e]) => fc.constantFrom(`0${a}${b}${c}${e}`, `0${a}${b} ${c} ${e}`, `0${a}${b}-${c}${e}`));
const phone = fc.oneof(nanpWritten, international, national);

/** The places a number hides in: prose, a path segment, an element id, a query value, a label. */
const places = fc.constantFrom(
  (p: string) => `call ${p} now`,
  (p: string) => `/call/${p}`,
  (p: string) => `/tel/${p}`,
  (p: string) => `/contact/${p}/thanks`,
  (p: string) => `#f-${p}`,
  (p: string) => `f-${p}`,
  (p: string) => `/form?phone=${p}&x=1`,
  (p: string) => `tel:${p}`,
  (p: string) => `Phone: ${p}`,
  (p: string) => p,
);

Deno.test("phone mask: every number people write, in every place, is masked (property)", () => {
  fc.assert(
    fc.property(phone, places, (p, place) => {
      const out = maskText(place(p));
      const digits = p.replace(/\D/g, "");
      assert.ok(out.includes(PHONE_MASK), `${place(p)} → ${out}`);
      assert.ok(!out.replace(/\D/g, "").includes(digits.slice(-7)), `${place(p)} → ${out}`);
    }),
    { numRuns: 2_000 },
  );
});

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const date = fc.tuple(
  fc.integer({ min: 1990, max: 2099 }),
  fc.integer({ min: 1, max: 12 }),
  fc.integer({ min: 1, max: 28 }),
)
  .chain(([y, m, day]) =>
    fc.constantFrom(
      `${y}-${pad(m)}-${pad(day)}`,
      `${y}/${pad(m)}/${pad(day)}`,
      `${pad(day)}.${pad(m)}.${y}`,
      `${pad(m)}/${pad(day)}/${y}`,
      `${y}-${pad(m)}-${pad(day)}T12:30:00Z`,
      `${y}-${pad(m)}-${pad(day)} 12:30:45`,
      `${pad(day)}.${pad(m)}.${y} 08:15`,
      `${y}-${pad(m)}-${pad(day)}T23:59:59.999+02:00`,
    )
  );
const time = fc.tuple(
  fc.integer({ min: 0, max: 23 }),
  fc.integer({ min: 0, max: 59 }),
  fc.integer({ min: 0, max: 59 }),
)
  .map(([h, m, s]) => `${pad(h)}:${pad(m)}:${pad(s)}`);
const uuid = fc.uuid();
const shortNumber = fc.integer({ min: 0, max: 99_999_999 }).map(String);
/** Plain ids: not phone-shaped (start with 1, too long, or inside a word), or a hex hash. */
const plainId = fc.oneof(
  fc.tuple(d(9), fc.constantFrom(0, 2, 3, 4)).map(([x, k]) => "1" + x + "0".repeat(k)),
  d(16).map((x) => "9" + x),
  fc.stringMatching(/^[0-9a-f]{40}$/).map((x) => "a" + x),
  d(10).map((x) => `evt_${x}`),
);
const idPlaces = fc.constantFrom(
  (p: string) => `/product/${p}`,
  (p: string) => `/orders/${p}/items`,
  (p: string) => `#item-${p}`,
  (p: string) => `/p?id=${p}`,
);
const anyPlace = fc.oneof(places, idPlaces);

Deno.test("phone mask: dates, times, UUIDs and short numbers are never masked, anywhere (property)", () => {
  fc.assert(
    fc.property(fc.oneof(date, time, uuid, shortNumber), anyPlace, (v, place) => {
      assert.equal(maskText(place(v)), place(v));
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("phone mask: plain ids in paths and element ids are not masked (property)", () => {
  fc.assert(
    fc.property(plainId, idPlaces, (v, place) => assert.equal(maskText(place(v)), place(v))),
    { numRuns: 1_000 },
  );
});

Deno.test("phone mask: an answer's paths, element ids, property values and labels come back masked and pass the checker", () => {
  const out = finalizeAnswer({
    scope: {
      period: { name: "last_7_days" },
      timezone: "UTC",
      environment: "production",
      touchpoint: null,
      traffic: "visitors",
      filter: null,
    },
    pages: [{ path: "/call/4155550134", views: 9 }, { path: "/tel/415-555-0134", views: 3 }],
    pages_total: 2,
    elements: [{ element: "#f-4155550134", label: "Call 415.555.0134", clicks: 4 }],
    elements_total: 1,
    values: [{ value: "/tel/00494155550134", visitors: 6 }],
    values_total: 1,
    notices: ["most views went to /call/4155550134"],
  }) as Record<string, unknown>;
  const text = JSON.stringify(out);
  assert.ok(!/4155550134|415-555-0134|415\.555\.0134/.test(text), text);
  assert.deepEqual(checkAnswer(out), []);
});

Deno.test("phone mask: linear in the text's length (a long run of separated digits is no slower per character)", () => {
  // 200,000 characters of 1-1-1-…: the candidate is bounded, so this returns at once (a bad regex took minutes)
  const long = "1-".repeat(100_000) + "x";
  assert.equal(maskText(`a@${long}`), `a@${long}`);
  assert.equal(maskText(long), long);
});
