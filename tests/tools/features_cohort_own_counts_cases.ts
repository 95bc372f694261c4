/**
 * behavior_features under a saved cohort: rage clicks, form starts and form submits are counts of their own
 * visitors, not of the element's clickers: made by 1 to 4 of the cohort's visitors they read "fewer than 5"
 * (and the rage-click share is withheld); made by 5 or more, and without a cohort, they are exact. Real HTTP
 * ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");
const PAY = { tag: "button", text: "Pay now", selector: "#pay" };
const FIELD = { tag: "input", text: null, id: "reason", selector: "#reason" };
const CANCEL = { tag: "form", text: "Cancel", id: "cancel", selector: "#cancel" };

let seq = 0;
const event = (v: number, session: string, type: string, more: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: session,
  sequence_no: seq++,
  platform: "web",
  event_type: type,
  screen: "/pay",
  device_time: new Date(NOW - 3_600_000 + seq).toISOString(),
  ...more,
  properties: { path: "/pay", url: "https://acme.test/pay", ...(more.properties as object ?? {}) },
});
const click = (v: number, s: string, rage: boolean) =>
  event(v, s, "$autocapture", { fingerprint: PAY, properties: { action: "click", rage_click: rage } });

Deno.test("features under a cohort: rage clicks, form starts and submits of 1 to 4 visitors read fewer than 5", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 10 visitors view /pay and click "Pay now"; visitor 0 rage-clicks 8 times; visitors 0 and 1 change the
    // cancel form's field and submit it in 4 sessions each
    for (let v = 0; v < 10; v++) {
      const batch = [event(v, `s${v}`, "$pageview"), click(v, `s${v}`, false)];
      if (v === 0) { for (let k = 0; k < 8; k++) batch.push(click(v, `s${v}`, true)); }
      if (v < 2) {
        for (let k = 0; k < 4; k++) {
          const s = `f${v}-${k}`;
          batch.push(
            event(v, s, "$pageview"),
            event(v, s, "$autocapture", {
              fingerprint: FIELD,
              properties: { action: "change", form: { fingerprint: CANCEL } },
            }),
            event(v, s, "$autocapture", { fingerprint: CANCEL, properties: { action: "submit" } }),
          );
        }
      }
      await site.ingest(batch);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "payers", { kind: "page", path: "/pay" });
    type Row = Record<string, unknown>;
    const of = (a: Record<string, unknown>, element: string) =>
      (a.elements as Row[]).find((e) => e.element === element)!;

    const plain = await site.read("behavior_features", { period: "today" });
    assert.equal(of(plain, "Pay now").rage_clicks, 8);
    assert.deepEqual([of(plain, "#cancel").form_starts, of(plain, "#cancel").form_submits], [8, 8]);

    const a = await site.read("behavior_features", { period: "today", cohort: "payers" });
    const pay = of(a, "Pay now"), cancel = of(a, "#cancel");
    assert.equal(pay.visitors, 10);
    assert.equal(pay.rage_clicks, "fewer than 5");
    assert.equal(pay.rage_click_visitors_share, null);
    assert.deepEqual([cancel.form_starts, cancel.form_submits], ["fewer than 5", "fewer than 5"]);
    assert.ok((a.notices as string[]).some((n) => n.includes("fewer than 5")), JSON.stringify(a.notices));
  } finally {
    await site.close();
  }
});

Deno.test("features under a cohort: sorted by rage clicks, a withheld figure sorts after every number, not by its hidden value", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  const RETRY = { tag: "button", text: "Retry", selector: "#retry" };
  try {
    // 10 visitors click "Pay now", visitor 0 rage-clicks it 8 times; visitors 0-5 rage-click "Retry" once each
    for (let v = 0; v < 10; v++) {
      const batch = [event(v, `s${v}`, "$pageview"), click(v, `s${v}`, false)];
      if (v === 0) { for (let k = 0; k < 8; k++) batch.push(click(v, `s${v}`, true)); }
      if (v < 6) {
        batch.push(event(v, `s${v}`, "$autocapture", {
          fingerprint: RETRY,
          properties: { action: "click", rage_click: true },
        }));
      }
      await site.ingest(batch);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "payers", { kind: "page", path: "/pay" });
    type Row = { element: string; rage_clicks: unknown };
    const order = (a: Record<string, unknown>) =>
      (a.elements as Row[]).map((e) => [e.element, e.rage_clicks]);

    const plain = await site.read("behavior_features", { period: "today", sort_by: "rage_clicks" });
    assert.deepEqual(order(plain), [["Pay now", 8], ["Retry", 6]]);
    const a = await site.read("behavior_features", {
      period: "today",
      sort_by: "rage_clicks",
      cohort: "payers",
    });
    assert.deepEqual(order(a), [["Retry", 6], ["Pay now", "fewer than 5"]]);
    // paged: the first row alone is the shown figure's
    const first = await site.read("behavior_features", {
      period: "today",
      sort_by: "rage_clicks",
      cohort: "payers",
      limit: 1,
    });
    assert.deepEqual(order(first), [["Retry", 6]]);
  } finally {
    await site.close();
  }
});
