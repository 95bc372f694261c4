/// <reference lib="dom" />
/**
 * An insight's page on a phone (390 px) in Chromium shows every list of its answer as its own table and never
 * scrolls sideways: crawl coverage's pages never read and stale pages, crawler access's refusals and spoofed
 * agents (only the first list was tabled). No table scrolls inside its frame either, each stacked cell holds
 * its column's name, and a cut list says how many rows it leaves out. The dev start's demo site, the app served
 * over HTTP, the insights saved through the app's form.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium } from "./browser.ts";
import { demoAppWorld } from "../helpers/demo_app.ts";

/** What overflows at the page's width: the page, a table's frame, an element of the main column. */
async function overflow(page: Page) {
  return await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const over: string[] = [];
    for (const el of document.querySelectorAll("main *")) {
      const b = el.getBoundingClientRect();
      if (b.width > 0 && b.right > width + 1) {
        over.push(`${el.tagName.toLowerCase()}: ${(el.textContent ?? "").trim().slice(0, 40)}`);
      }
    }
    const wraps = [...document.querySelectorAll(".table-wrap")].flatMap((w) =>
      w.scrollWidth > w.clientWidth + 1
        ? [`${w.querySelector("caption")?.textContent}: ${w.scrollWidth} in ${w.clientWidth}`]
        : []
    );
    // a stacked cell holds its column's name (a name of two lines must not run into the next cell)
    const labels = [...document.querySelectorAll("table.stack-sm td[data-label]")].flatMap((td) => {
      const label = getComputedStyle(td, "::before");
      if (label.content === "none" || label.display === "none") return [];
      return td.getBoundingClientRect().height + 0.5 >= parseFloat(label.height)
        ? []
        : [`${td.getAttribute("data-label")}: ${label.height} in ${td.getBoundingClientRect().height}`];
    });
    return { scroll: document.documentElement.scrollWidth, width, over, wraps, labels };
  });
}

Deno.test("answer view at 390 px: every list of an answer is its own table, nothing scrolls sideways", async () => {
  const w = await demoAppWorld();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req) => w.app.fetch(req),
  );
  const browser = await launchChromium().catch(async (err) => {
    await server.shutdown();
    w.close();
    throw err;
  });
  try {
    const pages = [
      {
        path: await w.insight("Coverage", "behavior_crawl_coverage", "last_30_days"),
        tables: [/^Crawlers$/, /^Pages never read$/, /^Stale pages$/],
      },
      {
        path: await w.insight("Access", "behavior_crawler_access", "last_28_days"),
        tables: [/^Crawlers$/, /^Refused or failed requests/, /^Spoofed agents/],
      },
    ];
    const base = `http://127.0.0.1:${server.addr.port}`;
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx.addCookies([...w.owner.cookies].map(([name, value]) => ({ name, value, url: base })));
    const page = await ctx.newPage();
    page.setDefaultTimeout(120_000);
    for (const p of pages) {
      await page.goto(base + p.path);
      const captions = (await page.locator("table caption").allInnerTexts()).map((c) => c.trim());
      for (const want of p.tables) {
        assert.ok(captions.some((c) => want.test(c)), `${want} among ${captions.join(" | ")}`);
      }
      // each table is seen: its rows are laid out on the page, none hidden
      const seen = await page.$$eval(
        "table.stack-sm",
        (ts) => ts.map((t) => t.getBoundingClientRect().height),
      );
      assert.ok(seen.every((h) => h > 40), `tables laid out: ${seen.join(", ")}`);
      const m = await overflow(page);
      assert.ok(
        m.scroll <= m.width,
        `${p.path}: scrollWidth ${m.scroll} > ${m.width}: ${m.over.slice(0, 6)}`,
      );
      assert.deepEqual(m.over, [], `${p.path}: nothing wider than the page`);
      assert.deepEqual(m.wraps, [], `${p.path}: no table scrolls inside its frame`);
      assert.deepEqual(m.labels, [], `${p.path}: stacked cells hold their column names`);
    }
    const more = await page.goto(base + pages[0].path).then(() =>
      page.locator(".table-more").allInnerTexts()
    );
    assert.ok(more.some((t) => /^and \d+ more$/.test(t.trim())), more.join(" | "));
    await ctx.close();
  } finally {
    await browser.close();
    await server.shutdown();
    w.close();
  }
});
