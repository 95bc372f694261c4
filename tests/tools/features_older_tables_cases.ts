/**
 * behavior_features after an upgrade to feature tables version 3 (the element's plain name a dimension) on a
 * site too large for its part cache: the parts' version-2 tables still answer (not the parts read at question
 * time), their rows read as events stored before ingest kept a plain name, so a text fewer than 5 visitors used
 * is never shown (such rows read "(name withheld)", a form's name needs 5 visitors), exactly as the scan
 * answers such events, counts exact; once the backfill has rebuilt them, the same engine gives the full answer.
 * Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { compact } from "../../lib/jobs/compact.ts";
import { backfillFeatureTables } from "../../lib/jobs/feature_rollup_backfill.ts";
import { listParts } from "../../lib/parts/store.ts";
import { hasFeatureTable } from "../../lib/query/feature_rollup/store.ts";
import { packEvent } from "../../lib/store/event_codec.ts";
import { keys } from "../../lib/store/keys.ts";
import { asFeatureV2, padWithPageviews } from "../helpers/older_tables.ts";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");
const MENU = (name: string) => ({
  tag: "button",
  text: `${name} ▾`,
  id: "account-menu",
  selector: "#account-menu",
});
const SAVE = { tag: "button", text: "Save changes", selector: "form > button" };
const HELP = { tag: "a", text: "Ask Jane for help", selector: "nav > a" };
const PEOPLE = ["Jane Roe", "John Smith", "Ann Lee"];

let seq = 0;
const click = (v: number, fingerprint: Record<string, unknown>, path = "/account") => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq++,
  platform: "web",
  event_type: "$autocapture",
  screen: path,
  fingerprint,
  device_time: new Date(NOW - 3_600_000 + seq).toISOString(),
  properties: { path, url: `https://acme.test${path}`, action: "click", rage_click: false } as Record<
    string,
    unknown
  >,
});

type Answer = { elements: Record<string, unknown>[]; elements_total: number; notices: string[] };

/**
 * A site where 8 visitors save their settings; visitors 0-2 open their account menu labelled with their own
 * name (visitor 0 twice), visitors 0 and 3-6 the same menu as an icon; visitors 3 and 4 click a link whose
 * text names a person; visitor 0 changes a field of the profile form. `old`: the events as stored before
 * ingest kept the plain name. `large`: 3,000 page views beside and PART_CACHE_MB 1, too small for the parts (the
 * feature tables answer) but with room in the tables' share of it to keep what they read.
 */
async function siteWith(large: boolean, old: boolean) {
  const site = await openSite({
    now: NOW - 3_600_000,
    config: {
      readKeyRatePerMinute: 1e6,
      publicKeyRatePerMinute: 1e6,
      ...(large ? { partCacheBytes: 1 << 20 } : {}),
    },
  });
  for (let v = 0; v < 8; v++) {
    const batch = [click(v, SAVE)];
    if (v < 3) batch.push(click(v, MENU(PEOPLE[v])));
    if (v === 0) batch.push(click(v, MENU(PEOPLE[v])));
    if (v === 0 || (v >= 3 && v <= 6)) batch.push(click(v, { ...MENU(""), text: null }));
    if (v === 3 || v === 4) batch.push(click(v, HELP, "/help"));
    if (v === 0) {
      const change = click(v, { tag: "textarea", id: "bio", selector: "#bio" });
      change.properties.action = "change";
      change.properties.form = { fingerprint: { tag: "form", id: "profile", selector: "#profile" } };
      delete change.properties.rage_click;
      batch.push(change);
    }
    assert.equal((await site.ingest(batch)).status, 204);
  }
  if (large) await padWithPageviews(site.ingest, NOW - 3_000_000, 3_000);
  if (old) {
    for (const e of await site.stored()) {
      const { element_plain: _, ...properties } = e.properties;
      await site.kv.set(keys.rawEvent(e.org, e.env, e.received_at, e.id), packEvent({ ...e, properties }));
    }
  }
  site.deps.clock.advance(3_600_000);
  await compact(site.deps, site.t.org, "production", "ev", { graceMs: 0 });
  return site;
}

const rowsOf = (a: Answer) =>
  a.elements.map((e) => [e.element, e.page, e.clicks, e.visitors, e.form_starts]).sort((x, y) =>
    `${x}` < `${y}` ? -1 : 1
  );

Deno.test("features: feature tables of version 2 still answer after the upgrade, never showing a text of 1 to 4 visitors, until the backfill rebuilds them", async () => {
  const ask = { period: "today" };
  // what the scan answers for the same events stored without plain names (a small site)
  const small = await siteWith(false, true);
  let scanned: Answer;
  try {
    scanned = await small.read("behavior_features", ask);
  } finally {
    await small.close();
  }
  // a site too large for its part cache: the feature tables answer
  const site = await siteWith(true, false);
  try {
    // the answer at version 3, from an engine of its own (the site's has not asked yet)
    const own = await createApp(site.deps).request("/v1/read/behavior_features", {
      method: "POST",
      headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(ask),
    });
    assert.equal(own.status, 200);
    const full: Answer = await own.json();
    assert.deepEqual(rowsOf(full), [
      ["#account-menu", "/account", 9, 7, 0],
      ["#profile", "/account", 0, 0, 1],
      ["Save changes", "/account", 8, 8, 0],
      ["a", "/help", 2, 2, 0],
    ]);

    // as the release before version 3 left the parts: tables of version 2
    const parts = await listParts(site.kv, site.t.org, "production", "ev");
    assert.ok(parts.length > 0);
    for (const p of parts) await asFeatureV2(site.kv, p.meta.id);
    for (const p of parts) {
      assert.equal(await hasFeatureTable(site.kv, p.meta.id), false, "the backfill's to do");
    }
    const during: Answer = await site.read("behavior_features", ask);
    const text = JSON.stringify(during);
    for (const name of [...PEOPLE, "Jane"]) assert.ok(!text.includes(name), `${name} in ${text}`);
    // no plain names in the tables: the rows of names fewer than 5 visitors used read "(name withheld)" (read
    // at question time, the parts' events would give their plain names: #account-menu with 7 visitors, a)
    assert.deepEqual(rowsOf(during), [
      ["#account-menu", "/account", 5, 5, 0],
      ["(form name withheld)", "/account", 0, 0, 1],
      ["(name withheld)", "/account", 4, 3, 0],
      ["(name withheld)", "/help", 2, 2, 0],
      ["Save changes", "/account", 8, 8, 0],
    ]);
    // as the scan answers events stored without plain names: every figure and notice
    assert.deepEqual(during.elements, scanned.elements);
    assert.deepEqual(during.notices, scanned.notices);

    // the backfill rebuilds them at version 3; the same engine then answers as before the downgrade
    const done = await backfillFeatureTables(site.deps, site.t.org, "production");
    assert.deepEqual({ parts: done.parts, remaining: done.remaining }, { parts: parts.length, remaining: 0 });
    assert.deepEqual(await site.read("behavior_features", ask), full);
  } finally {
    await site.close();
  }
});
