/**
 * `deno task dev` has completed reports for the demo site, and a report page in Chromium shows its charts:
 * SVG drawn on the server, with lines and bars, under the app's CSP (no inline style needed).
 */
import assert from "node:assert/strict";
import { launchChromium } from "./browser.ts";
import { startDevServer } from "../helpers/server.ts";

Deno.test("reports in the browser: the dev start's demo report opens with its charts", async () => {
  const { out, stop } = await startDevServer();
  const browser = await launchChromium().catch(async (err) => {
    await stop();
    throw err;
  });
  try {
    assert.match(out, /demo reports generated: [1-9]/);
    const base = out.match(/Service running at (http:\/\/127\.0\.0\.1:\d+)/)![1];
    const org = out.match(/demo organization (org_[A-Za-z0-9_-]+)/)![1];
    const owner = out.match(/sign in as (\S+), password (\S+)\)/)!;

    const page = await browser.newPage();
    // the first report page loads the chart modules: on a busy shared machine that can take a while
    page.setDefaultTimeout(120_000);
    page.setDefaultNavigationTimeout(120_000);
    const problems: string[] = [];
    page.on("console", (m) => {
      // the page names its icon, so the browser never asks for a missing /favicon.ico
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(`${base}/app/sign-in`);
    await page.fill('input[name="email"]', owner[1]);
    await page.fill('input[name="password"]', owner[2]);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    await page.goto(`${base}/app/o/${org}/reports`);
    await page.getByRole("link", { name: "Reports" }).first().waitFor();
    const rows = await page.locator("#reports tbody tr").count();
    assert.ok(rows >= 2, `the demo's weekly and monthly reports are listed (${rows})`);
    const href = await page.locator("#reports tr", { hasText: "Demo Shop website" })
      .locator("a", { hasText: /^Week / }).first().getAttribute("href");
    assert.ok(href, "the website's weekly report is linked");
    await page.goto(`${base}${href}`);
    const charts = page.locator("figure .chart-wide svg.chart");
    assert.equal(await charts.count(), 2);
    const line = page.locator('.chart-wide svg.chart-line[role="img"]');
    assert.equal(await line.getAttribute("aria-label"), "Visitors by day");
    assert.ok(await line.locator("path").count() >= 2, "this week's line and the week before");
    assert.ok(await page.locator(".chart-wide svg.chart-bar rect").count() >= 1, "bars of the top pages");
    const box = await line.boundingBox();
    assert.ok(
      box && box.width > 200 && box.height > 100,
      `the chart is drawn at size: ${JSON.stringify(box)}`,
    );
    assert.match(await page.locator(".report-summary").innerText(), /visitors/);
    assert.deepEqual(problems, [], "no console errors (a CSP refusal would show here)");
    // printable: the nav and forms leave the page in print
    await page.emulateMedia({ media: "print" });
    assert.equal(await page.locator("nav.sections").isVisible(), false);
    assert.equal(await charts.first().isVisible(), true);
  } finally {
    await browser.close();
    await stop();
  }
});
