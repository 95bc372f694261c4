/**
 * behavior_features names an element by its text only where 5 or more visitors used that text (spec answer
 * rule 5, as a property value): an account menu button labelled with the signed-in person's own name is named
 * by its #id, its row and counts still there, the names nowhere in the answer, and its clicks without a label
 * (an icon) in the same row, each visitor counted once. A link whose text 2 visitors
 * used is named by its tag. Events stored before ingest kept the element's plain name (old data) are named
 * "(name withheld)" where their text is not shown. On a small site (the scan) and on a site too large for its
 * part cache (feature tables), the same answer. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { compact } from "../../lib/jobs/compact.ts";
import { packEvent } from "../../lib/store/event_codec.ts";
import { keys } from "../../lib/store/keys.ts";
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
  properties: clickProperties(path),
});
/** (a record: a test event may carry other properties, a form change's `form`) */
const clickProperties = (path: string): Record<string, unknown> => ({
  path,
  url: `https://acme.test${path}`,
  action: "click",
  rage_click: false,
});

type Row = { element: string; page: string; clicks: unknown; visitors: unknown };

async function answer(config: Record<string, unknown>, old: boolean) {
  const site = await openSite({
    now: NOW - 3_600_000,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, ...config },
  });
  try {
    // 8 visitors save their settings; visitors 0-2 each open their own account menu (twice for visitor 0),
    // labelled with their own name, and visitors 0 and 3-6 the same menu shown as an icon (no text); visitors
    // 3 and 4 click a help link whose text names a person
    for (let v = 0; v < 8; v++) {
      const batch = [click(v, SAVE)];
      if (v < 3) batch.push(click(v, MENU(PEOPLE[v])));
      if (v === 0) batch.push(click(v, MENU(PEOPLE[v])));
      if (v === 0 || (v >= 3 && v <= 6)) batch.push(click(v, { ...MENU(""), text: null }));
      if (v === 3 || v === 4) batch.push(click(v, HELP, "/help"));
      if (v === 0) {
        batch.push({
          ...click(v, { tag: "textarea", id: "bio", selector: "#bio" }),
          properties: {
            path: "/account",
            url: "https://acme.test/account",
            action: "change",
            form: { fingerprint: { tag: "form", id: "profile", selector: "#profile" } },
          },
        });
      }
      assert.equal((await site.ingest(batch)).status, 204);
    }
    if (old) {
      // as stored before ingest kept the element's plain name, a form's change as stored before a form was
      // named by its id (by its text: here what was typed into its editor)
      for (const e of await site.stored()) {
        const { element_plain: _, ...properties } = e.properties;
        if (properties.form_element) properties.form_element = "Dear Jane, thanks";
        await site.kv.set(keys.rawEvent(e.org, e.env, e.received_at, e.id), packEvent({ ...e, properties }));
      }
    }
    site.deps.clock.advance(3_600_000);
    await compact(site.deps, site.t.org, "production", "ev", { graceMs: 0 });
    const a = await site.read("behavior_features", { period: "today" });
    const one = await site.read("behavior_features", { period: "today", page: "/account" });
    return { a, one };
  } finally {
    await site.close();
  }
}

const rowsOf = (a: { elements: Row[] }) =>
  a.elements.map((e) => [e.element, e.page, e.clicks, e.visitors]).sort((x, y) => (`${x}` < `${y}` ? -1 : 1));

for (const [how, config] of [["small site", {}], ["large site", { partCacheBytes: 4096 }]] as const) {
  Deno.test(`features (${how}): a text fewer than 5 visitors used is never shown; its row is named by #id or tag`, async () => {
    const { a, one } = await answer(config, false);
    const text = JSON.stringify([a, one]);
    for (const name of [...PEOPLE, "Jane"]) assert.ok(!text.includes(name), `${name} in ${text}`);
    // the menu's one row: its clicks with and without a name, each visitor once
    assert.deepEqual(rowsOf(a), [
      ["#account-menu", "/account", 9, 7],
      ["#profile", "/account", 0, 0],
      ["Save changes", "/account", 8, 8],
      ["a", "/help", 2, 2],
    ]);
    assert.deepEqual(rowsOf(one), rowsOf(a).filter((r) => r[1] === "/account"));
    assert.ok(a.notices.some((n: string) => n.includes("#id, role or tag")), JSON.stringify(a.notices));
  });

  Deno.test(`features (${how}): events stored before the plain name was kept show no text of few visitors`, async () => {
    const { a } = await answer(config, true);
    const text = JSON.stringify(a);
    for (const name of [...PEOPLE, "Jane"]) assert.ok(!text.includes(name), `${name} in ${text}`);
    assert.deepEqual(rowsOf(a), [
      ["#account-menu", "/account", 5, 5],
      ["(form name withheld)", "/account", 0, 0],
      ["(name withheld)", "/account", 4, 3],
      ["(name withheld)", "/help", 2, 2],
      ["Save changes", "/account", 8, 8],
    ]);
  });
}
