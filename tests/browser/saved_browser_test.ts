/// <reference lib="dom" />
/**
 * Saved items in Debian's Chromium against the real service (main.ts in a child process): an owner builds a
 * cohort in the form (the live preview counts its visitors exactly), an insight by its question and a dashboard
 * (its view draws a chart), then behavior_saved, asked with a read key, lists and runs them.
 */
import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { launchChromium, USER_AGENT } from "./browser.ts";

const PASSWORD = "a long browser passphrase";

/** Six visitors in the last days: all view /pricing, four sign up. */
function history(now: number): string {
  const lines: string[] = [];
  for (let v = 0; v < 6; v++) {
    const t = now - (v + 1) * 3_600_000;
    const base = {
      kind: "event",
      anonymous_id: `browser-visitor-${v}`,
      session_id: `browser-session-${v}`,
      platform: "web",
      properties: { path: "/pricing", url: "https://acme.test/pricing" },
      context: {},
      user_agent: USER_AGENT,
    };
    lines.push(JSON.stringify({
      ...base,
      event_id: crypto.randomUUID(),
      received_at: t,
      device_time: new Date(t).toISOString(),
      sequence_no: 0,
      event_type: "$pageview",
      screen: "/pricing",
    }));
    if (v < 4) {
      lines.push(JSON.stringify({
        ...base,
        event_id: crypto.randomUUID(),
        received_at: t + 1000,
        device_time: new Date(t + 1000).toISOString(),
        sequence_no: 1,
        event_type: "sign_up",
        screen: "/pricing",
        properties: { plan: "pro" },
      }));
    }
  }
  return lines.join("\n");
}

Deno.test("saved in Chromium: a cohort with a live preview, an insight from the tool's schema, a dashboard; behavior_saved finds them", async () => {
  const server = await startServer();
  const api = { request: (p: string, init?: RequestInit) => fetch(server.url + p, init) };
  const browser = await launchChromium().catch(async (e) => {
    await server.stop();
    throw e;
  });
  try {
    const tenant = await createTenant(api, server.adminToken);
    const imported = await fetch(
      `${server.url}/admin/v1/orgs/${tenant.org}/import?touchpoint=${tenant.touchpoint}&environment=production`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/x-ndjson" },
        body: history(Date.now()),
      },
    ).then((r) => r.json());
    assert.equal(imported.imported, 10, JSON.stringify(imported));
    const invite = await adminCall(api, server.adminToken, "POST", `/orgs/${tenant.org}/invitations`, {
      email: "olga@acme.test",
      role: "owner",
    });
    const ctx = await browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    page.on("dialog", (d) => d.accept());
    await page.goto(String(invite.invitation_url));
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByLabel("Repeat it").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account and join" }).click();
    await page.waitForURL(/\/settings\/touchpoints$/);

    // a cohort, built in the form; the preview counts as the conditions change
    await page.getByRole("link", { name: "Cohorts" }).click();
    await page.getByRole("link", { name: "New cohort" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Pricing viewers");
    const first = page.locator("fieldset.condition").first();
    await first.getByLabel("Check").selectOption("page");
    await first.getByLabel("Value").fill("/pricing");
    await page.locator("#cohort-preview", { hasText: "exactly 6 visitors in the last 30 days" }).waitFor();
    const second = page.locator("fieldset.condition").nth(1);
    await second.getByLabel("Check").selectOption("event");
    await second.getByLabel("Value").fill("sign_up");
    await page.locator("#cohort-preview", { hasText: "fewer than 5 visitors" }).waitFor();
    await second.getByLabel("Visitors who").selectOption("not");
    await page.locator("#cohort-preview", { hasText: "fewer than 5 visitors" }).waitFor();
    await second.getByLabel("Visitors who").selectOption("did");
    await second.getByLabel("Check").selectOption("");
    await page.locator("#cohort-preview", { hasText: "exactly 6 visitors" }).waitFor();
    await page.getByRole("button", { name: "Create cohort" }).click();
    await page.getByText("Cohort “Pricing viewers” saved.").waitFor();
    assert.ok(await page.getByRole("cell", { name: "viewed /pricing" }).isVisible());

    // an insight: pick the tool, then its inputs come from its schema
    await page.getByRole("link", { name: "Insights" }).click();
    await page.getByRole("link", { name: "New insight" }).click();
    // the question picker submits itself from the page's script: wait until the script has run (a busy
    // machine may show the form first)
    await page.waitForLoadState("load");
    await page.getByLabel("Question").selectOption({ label: "Top pages" });
    await page.waitForURL(/tool=behavior_pages/);
    await page.getByLabel("Name", { exact: true }).fill("Pages of pricing viewers");
    await page.getByLabel("Only visitors in the cohort").selectOption("Pricing viewers");
    await page.getByRole("combobox", { name: /^Sort by/ }).selectOption("visitors");
    // a number field is drawn like the text fields around it (it was the browser's thin default box)
    const height = (l: import("playwright-core").Locator) =>
      l.evaluate((e) => e.getBoundingClientRect().height);
    const rows = page.getByRole("spinbutton", { name: /^Rows to show/ });
    const name = page.getByLabel("Name", { exact: true });
    assert.ok(Math.abs(await height(rows) - await height(name)) <= 1, "number and text fields are alike");
    await page.getByRole("spinbutton", { name: /^Rows to show/ }).fill("99");
    await page.getByRole("button", { name: "Create insight" }).click();
    // a refusal names the field and keeps what was typed
    await page.getByText(/input of behavior_pages: limit/).waitFor();
    assert.equal(await page.getByLabel("Name", { exact: true }).inputValue(), "Pages of pricing viewers");
    await page.getByRole("spinbutton", { name: /^Rows to show/ }).fill("10");
    await page.getByRole("button", { name: "Create insight" }).click();
    await page.getByText("Insight “Pages of pricing viewers” saved.").waitFor();

    // a dashboard with that insight; its view shows the figures and a chart drawn on the server
    await page.getByRole("link", { name: "Dashboards" }).click();
    await page.getByRole("link", { name: "New dashboard" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Pricing");
    await page.getByRole("checkbox", { name: /Pages of pricing viewers/ }).check();
    await page.getByRole("button", { name: "Create dashboard" }).click();
    await page.getByRole("heading", { name: "Pricing", level: 1 }).waitFor();
    await page.getByRole("heading", { name: "Pages of pricing viewers" }).waitFor();
    const chart = page.locator("figure.chart .chart-wide svg[role=img]");
    assert.match(String(await chart.getAttribute("aria-label")), /Pages of pricing viewers/);
    assert.ok(await page.getByText(/only the cohort “Pricing viewers”/).isVisible());

    // an assistant (here: the read API with a read key) finds all three
    const ask = (input: Record<string, unknown>) =>
      fetch(`${server.url}/v1/read/behavior_saved`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.readKey}`, "content-type": "application/json" },
        body: JSON.stringify(input),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const list = await ask({});
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(
      list.body.items.map((x: { kind: string; name: string; author_role: string }) =>
        `${x.kind}:${x.name}:${x.author_role}`
      ),
      ["cohort:Pricing viewers:owner", "insight:Pages of pricing viewers:owner", "dashboard:Pricing:owner"],
    );
    const size = await ask({ action: "cohort", name: "Pricing viewers" });
    assert.equal(size.body.cohort.visitors, 6);
    const run = await ask({ action: "insight", name: "Pages of pricing viewers" });
    assert.equal(run.body.insight.answer.pages[0].page, "/pricing");
    assert.equal(run.body.insight.answer.pages[0].visitors, 6);
    const dash = await ask({ action: "dashboard", name: "Pricing" });
    assert.equal(dash.body.dashboard.insights[0].chart.points[0].value, 6);
    await ctx.close();
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
});
