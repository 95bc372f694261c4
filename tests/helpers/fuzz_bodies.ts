/**
 * The hostile bodies of the fuzz suite (tests/helpers/fuzz.ts): JSON values that are deep, wide, with lone
 * surrogates and look-alike keys; web events and crawler hits as JSON text whose every field is usually
 * valid and sometimes anything; and bodies cut short or holding bytes that are not UTF-8.
 */
import fc from "fast-check";

const deepText = (levels: number, open: string, close: string, leaf = "1") =>
  open.repeat(levels) + leaf + close.repeat(levels);

/** Strings a hostile sender tries: lone surrogates, controls, long runs, look-alike keys. */
export const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("surr\ud800gate", "\udc00", "a\ud83d", "\u0000", "\ufffd", "__proto__", "constructor", ""),
  fc.nat({ max: 70_000 }).map((n) => "x".repeat(n)),
);

const nastyKey = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "", "k\ud800", "path", "url"),
  },
);

/** JSON values, some deep, some wide, with nasty strings and keys. */
export const nastyJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -0, 1e308, -1.5),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    nastyString,
    fc.array(tie("v"), { maxLength: 5 }),
    fc.dictionary(nastyKey, tie("v"), { maxKeys: 5 }),
  ),
})).v;

/** A JSON text for a free-form slot: usually a plain object, sometimes hostile or far too deep. */
const freeFormText = fc.oneof(
  {
    weight: 40,
    arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
      .map((v) => JSON.stringify(v)),
  },
  { weight: 2, arbitrary: fc.dictionary(nastyKey, nastyJson, { maxKeys: 6 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 4_000 }).map((n) => `{"a":${deepText(n, "[", "]")}}`) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 990, max: 1_010 }).map((n) => JSON.stringify({ l: Array(n).fill("s") })),
  },
  { weight: 1, arbitrary: nastyJson.map((v) => JSON.stringify(v) ?? "null") },
);

/** A field's JSON text: the valid one most of the time, else anything. */
export const field = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 60, arbitrary: valid.map((v) => JSON.stringify(v)) }, {
    weight: 1,
    arbitrary: nastyJson.map((v) => JSON.stringify(v) ?? "null"),
  });

export const uuidText = fc.oneof(
  { weight: 8, arbitrary: fc.uuid().map((u) => JSON.stringify(u)) },
  { weight: 1, arbitrary: fc.uuid().map((u) => JSON.stringify(u.toUpperCase())) },
  { weight: 1, arbitrary: nastyJson.map((v) => JSON.stringify(v) ?? "null") },
);

export const isoTime = fc.date({
  min: new Date("2026-11-10T00:00:00Z"),
  max: new Date("2026-11-20T12:04:00Z"),
  noInvalidDate: true,
})
  .map((d) => d.toISOString());

export function objectText(fields: [string, string | null][]) {
  return "{" + fields.filter(([, v]) => v !== null).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",") +
    "}";
}

export const optional = (a: fc.Arbitrary<string>) => fc.option(a, { nil: null, freq: 3 });

export const eventText = (host: string) =>
  fc.tuple(
    uuidText,
    field(fc.string({ minLength: 1, maxLength: 20 })),
    field(fc.constantFrom("s1", "s2", "s3")),
    field(fc.nat({ max: 50 })),
    field(fc.constantFrom("web", "ios", "android")),
    field(fc.constantFrom("$pageview", "$click", "signup", "$web_vitals")),
    field(fc.constantFrom("/", "/pricing", "/docs/a")),
    freeFormText.map((p) =>
      p.startsWith("{") ? p.replace(/^\{/, `{"url":"https://${host}/x",`).replace(/,\}$/, "}") : p
    ),
    optional(freeFormText),
    optional(freeFormText),
    field(isoTime),
    optional(field(fc.option(fc.string({ maxLength: 10 }), { nil: null }))),
  ).map(([id, anon, session, seq, platform, type, screen, props, ctx, fp, time, user]) =>
    objectText([
      ["event_id", id],
      ["anonymous_id", anon],
      ["session_id", session],
      ["sequence_no", seq],
      ["platform", platform],
      ["event_type", type],
      ["screen", screen],
      ["properties", props],
      ["context", ctx],
      [
        "fingerprint",
        fp === null ? null : fp.replace(/^\{/, `{"tag":"a","selector":"a",`).replace(/,\}$/, "}"),
      ],
      ["device_time", time],
      ["user_id", user],
    ])
  );

/** How a body is spoiled on its way: mostly not at all, sometimes cut, or with bytes that are not UTF-8. */
export const mutation = fc.tuple(
  fc.nat({ max: 99 }),
  fc.nat(),
  fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90]),
);
export type Mutation = [number, number, readonly number[]];

export function mutate(text: string, [roll, at, bad]: Mutation): Uint8Array<ArrayBuffer> {
  const b = new TextEncoder().encode(text);
  if (roll < 88) return b;
  const i = at % (b.length + 1);
  if (roll < 94) return b.subarray(0, i); // cut short
  const out = new Uint8Array(b.length + bad.length);
  out.set(b.subarray(0, i)), out.set(bad, i), out.set(b.subarray(i), i + bad.length);
  return out;
}

export const asBytes = (text: string) => mutation.map((m) => mutate(text, m));

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";

export const hitText = (host: string) =>
  fc.tuple(
    field(fc.constant("$crawl")),
    uuidText,
    optional(field(isoTime)),
    field(fc.constantFrom(host, `www.${host}`, "elsewhere.test", `${host}:8080`)),
    field(fc.constantFrom("/", "/robots.txt", "/llms.txt", "/pricing?x=1")),
    optional(field(fc.constantFrom("GET", "HEAD", "post"))),
    optional(field(fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }))),
    field(fc.constantFrom(GPTBOT, "curl/8.0", "Mozilla/5.0 (compatible; bingbot/2.0)", "ClaudeBot/1.0")),
    optional(field(fc.constantFrom("20.171.206.10", "::1", "not an ip", "2001:db8::1"))),
    optional(field(fc.constantFrom("https://google.com/", null))),
  ).map(([type, id, ts, hostT, path, method, status, ua, ip, ref]) =>
    objectText([
      ["event_type", type],
      ["event_id", id],
      ["timestamp", ts],
      ["host", hostT],
      ["path", path],
      ["method", method],
      ["status", status],
      ["user_agent", ua],
      ["ip", ip],
      ["referer_host", ref],
    ])
  );
