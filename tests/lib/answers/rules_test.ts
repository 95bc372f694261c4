import assert from "node:assert/strict";
import { z } from "zod";
import { checkAnswer } from "../../../lib/answers/check.ts";
import { finalizeAnswer } from "../../../lib/answers/rules.ts";
import { guardedTime, guardedVisitors, maskText, nameableValues } from "../../../lib/answers/privacy.ts";

const scope = {
  period: { name: "last_7_days", from: "2026-11-14T00:00:00.000Z", to: "2026-11-20T12:00:00.001Z" },
  timezone: "UTC",
  environment: "production",
  touchpoint: null,
  traffic: "visitors",
  filter: null,
};

Deno.test("answer rules: emails and phone numbers are masked in quoted text, dates and paths are not", () => {
  assert.equal(maskText("write to jane.doe@example.com now"), "write to [email] now");
  assert.equal(maskText("call +49 30 1234 5678 or (212) 555-0188"), "call [phone] or [phone]");
  assert.equal(maskText("2026-11-20T12:00:00Z"), "2026-11-20T12:00:00Z");
  assert.equal(maskText("/orders/2026-11-20"), "/orders/2026-11-20");
  assert.equal(maskText("/product/1234567890"), "/product/1234567890");
  assert.equal(maskText("version 1.2.3"), "version 1.2.3");
});

Deno.test("answer rules: emails in any script and national numbers written with a slash are masked", () => {
  // reviews and property values are multilingual: umlauts, other scripts, IDN domains, the fullwidth @
  for (const email of ["jörg.müller@münchen.de", "user@exämple.de", "müller@example.de", "ann@例え.jp"]) {
    assert.equal(maskText(`mail ${email}, thanks`), "mail [email], thanks", email);
  }
  assert.equal(maskText("ann＠example.com"), "[email]");
  assert.equal(maskText("x@shop.xn--p1ai ok"), "[email] ok");
  // the German way to write a number: area code, slash, number
  assert.equal(maskText("ruf 030/1234567 an"), "ruf [phone] an");
  assert.equal(maskText("Tel. 0171 / 2345678"), "Tel. [phone]");
  assert.equal(maskText("call 030/1234567 or 030/7654321"), "call [phone] or [phone]");
  assert.equal(maskText("12/05 030 1234567"), "12/[phone]", "a phone after a date-like pair is still found");
  // slashes elsewhere are not phone numbers: dates, fractions, paths, runs of numbers
  for (
    const text of [
      "10/12/2026",
      "3/4 of them",
      "pages 100/200/300/400",
      "/a/0301/2345678",
      "/orders/2024/10/1234567",
    ]
  ) {
    assert.equal(maskText(text), text);
  }
});

Deno.test("answer rules: small groups read 'fewer than 5' only under a filter; times need 5 visitors", () => {
  assert.equal(guardedVisitors(3, true), "fewer than 5");
  assert.equal(guardedVisitors(3, false), 3);
  assert.equal(guardedVisitors(0, true), 0);
  assert.equal(guardedVisitors(5, true), 5);
  assert.equal(guardedTime(12.34, 4), null);
  assert.equal(guardedTime(12.34, 5), 12.3);
  const { named, withheld } = nameableValues([{ visitors: 9 }, { visitors: 4 }, { visitors: 5 }]);
  assert.equal(named.length, 2);
  assert.equal(withheld, 1);
});

Deno.test("answer rules: finalize puts scope first, keeps every key, masks text and cuts lists to 25 with a total", () => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ page: `/p${i}`, visitors: 10, session_id: `s${i}` }));
  const out = finalizeAnswer({
    pages: rows,
    note: "mail bob@example.org",
    scope,
    notices: ["n1"],
  }, ["fresh"]);
  assert.deepEqual(Object.keys(out), ["scope", "pages", "pages_total", "note", "notices"]);
  assert.equal((out.pages as unknown[]).length, 25);
  assert.equal(out.pages_total, 40);
  // Keys are never dropped by name: a split value "key" is data. Identifiers stay out by the schemas.
  assert.equal((out.pages as { session_id: string }[])[0].session_id, "s0");
  assert.equal(out.note, "mail [email]");
  assert.deepEqual(out.notices, ["n1", "fresh"]);
  assert.ok(checkAnswer(out).some((p) => /identifier field "session_id"/.test(p)));
});

Deno.test("answer checker: each rule fails on an answer that breaks it", () => {
  const ok = { scope, pages: [{ page: "/", visitors: 9 }], pages_total: 1, notices: [] };
  assert.deepEqual(checkAnswer(ok), []);
  const broken: [string, unknown, RegExp][] = [
    ["scope not first", { pages: [], scope, notices: [] }, /start with its scope/],
    [
      "scope incomplete",
      { scope: { environment: "production", touchpoint: null, traffic: "visitors" }, notices: [] },
      /missing period/,
    ],
    [
      "list too long",
      { ...ok, pages: Array(26).fill({ page: "/", visitors: 9 }), pages_total: 26 },
      /more than 25/,
    ],
    ["no total", { scope, pages: [{ page: "/", visitors: 9 }], notices: [] }, /pages_total/],
    ["identifier field", { ...ok, visits: [{ anonymous_id: "a" }], visits_total: 1 }, /identifier field/],
    ["identifier value", { ...ok, pages: [{ page: "/u/anon-77", visitors: 9 }] }, /anon-77/],
    ["address", { ...ok, note: "from 81.2.69.10" }, /IP address/],
    ["key", { ...ok, note: "svc_rk_prod_abcdefghijklmnop" }, /API key/],
    ["email", { ...ok, note: "ann@example.com" }, /unmasked/],
    ["email as a field name", { ...ok, by: { "ann@example.com": 3 } }, /in a field name/],
    ["small group under filter", {
      ...ok,
      scope: { ...scope, filter: "plan = pro" },
      pages: [{ page: "/", visitors: 3 }],
    }, /fewer than 5/],
    [
      "small value named",
      { ...ok, values: [{ value: "gold", visitors: 2 }], values_total: 1 },
      /value sent by fewer/,
    ],
    ["time for few", { ...ok, pages: [{ page: "/", visitors: 4, engagement_time_s: 12 }] }, /time given/],
  ];
  for (const [name, answer, rule] of broken) {
    const found = checkAnswer(answer, { identifiers: ["anon-77"] });
    assert.ok(found.some((v) => rule.test(v)), `${name}: ${JSON.stringify(found)}`);
  }
});

Deno.test("answer rules: IPv4 and IPv6 addresses and service keys in property values are masked, times are not", () => {
  assert.equal(maskText("from 203.0.113.7 again"), "from [ip] again");
  assert.equal(maskText("client 2001:db8::8a2e:370:7334 seen"), "client [ip] seen");
  assert.equal(maskText("2001:0db8:85a3:0000:0000:8a2e:0370:7334"), "[ip]");
  assert.equal(maskText("loopback ::1. Then fe80::1."), "loopback [ip]. Then [ip].");
  assert.equal(maskText("mapped ::ffff:192.0.2.1"), "mapped [ip]");
  assert.equal(maskText("key svc_pk_abc123XYZ leaked"), "key [key] leaked");
  assert.equal(maskText("Bearer svc_rk_prod_0123456789abcdef"), "Bearer [key]");
  assert.equal(maskText("at 12:00:00 today"), "at 12:00:00 today");
  assert.equal(maskText("std::vector"), "std::vector");
  const out = finalizeAnswer({
    scope,
    values: [{ value: "10.1.2.3", count: 9 }, { value: "fe80::1", count: 8 }, {
      value: "svc_sk_prod_x1",
      count: 7,
    }],
    values_total: 3,
  });
  assert.deepEqual(checkAnswer(out), []);
  assert.deepEqual((out.values as { value: string }[]).map((v) => v.value), ["[ip]", "[ip]", "[key]"]);
  assert.ok(checkAnswer({ scope, x: "fe80::1", notices: [] }).some((v) => /IP address/.test(v)));
});

Deno.test("answer checker: under a filter, events or sessions of a group read 'fewer than 5' must not be exact", () => {
  const filtered = { ...scope, filter: "sign_up.plan = team" };
  const bad = {
    scope: filtered,
    splits: [{ name: "mobile", visitors: "fewer than 5", events: 3, sessions: 2 }],
  };
  const problems = checkAnswer({ ...bad, splits_total: 1, notices: [] });
  assert.ok(problems.some((p) => /splits\[0\]\.events/.test(p)), problems.join());
  assert.ok(problems.some((p) => /splits\[0\]\.sessions/.test(p)), problems.join());
  const good = {
    scope: filtered,
    splits: [{ name: "mobile", visitors: "fewer than 5", events: "fewer than 5", sessions: "fewer than 5" }],
    splits_total: 1,
    notices: [],
  };
  assert.deepEqual(checkAnswer(good), []);
});

Deno.test("answer checker: a compared session duration beside fewer than 5 visitors is flagged", () => {
  const answer = (duration: number | null) => ({
    scope,
    visitors: { value: 1, previous: 12, change: null },
    session_duration_s: { value: duration, previous: 40.2, change: null },
    notices: [],
  });
  assert.ok(checkAnswer(answer(31.5)).some((p) => /session_duration_s\.value/.test(p)));
  assert.deepEqual(checkAnswer(answer(null)), []);
});

Deno.test("answer checker with the output schema: map keys are values, undeclared and identifier fields fail", () => {
  const output = z.object({
    scope: z.unknown(),
    series: z.array(z.object({ bucket: z.string(), by: z.record(z.string(), z.number()).optional() })),
    splits: z.array(z.object({ name: z.string(), visitors: z.number() })),
    notices: z.array(z.string()),
  });
  const answer = {
    scope,
    series: [{ bucket: "2026-11-20", by: { ip: 3, key: 4, user_id: 1 } }],
    splits: [{ name: "ip", visitors: 9 }],
    splits_total: 1,
    notices: [],
  };
  assert.deepEqual(checkAnswer(answer, { output }), []);
  // Without the schema, the checker cannot tell a map from an object: names alone are flagged.
  assert.ok(checkAnswer(answer).some((p) => /identifier field "ip"/.test(p)));
  const sneaked = { ...answer, splits: [{ name: "ip", visitors: 9, anonymous_id: "a1" }] };
  const found = checkAnswer(sneaked, { output });
  assert.ok(
    found.some((p) => /splits\[0\]\.anonymous_id: a field the output schema does not declare/.test(p)),
  );
  assert.ok(found.some((p) => /identifier field "anonymous_id"/.test(p)));
  const declares = output.extend({ visits: z.array(z.object({ ip: z.string().nullable() })).optional() });
  assert.ok(
    checkAnswer(answer, { output: declares }).some((p) =>
      /schema: declares identifier field visits\[\]\.ip/.test(p)
    ),
  );
});

Deno.test("answer rules: an app's numeric store id is a machine value, not masked as a phone number; quoted text still is", () => {
  const out = finalizeAnswer({
    scope,
    apps: [{ name: "Acme", store: "app_store", store_id: "123456789", quote: "call 123456789 now" }],
    apps_total: 1,
    notices: [],
  }) as { apps: { store_id: string; quote: string }[] };
  assert.equal(out.apps[0].store_id, "123456789");
  assert.equal(out.apps[0].quote, "call [phone] now");
  assert.deepEqual(checkAnswer(out), []);
});
