/**
 * An insight's page shows every list of its answer, each as its own titled table: crawl coverage showed "Pages
 * never read" and "Stale pages" as counts only, never which pages, and crawler access "Crawlers with refusals"
 * with no table of the refusals or the spoofed agents (only an answer's first list was tabled). A list longer
 * than a table's rows says how many it leaves out ("and 31 more"). Through the app's HTTP routes against the
 * dev start's demo site (its crawler hits include refusals and spoofed agents); each table's rows are the read
 * API's answer's.
 */
import assert from "node:assert/strict";
import { demoAppWorld, type Table, tablesOf } from "../../helpers/demo_app.ts";

type Rows = { [k: string]: unknown }[];

const table = (tables: Table[], caption: RegExp) => {
  const t = tables.find((x) => caption.test(x.caption));
  assert.ok(t, `a table "${caption}" among ${tables.map((x) => x.caption).join(" | ")}`);
  return t;
};

Deno.test("app answer view: every list of an answer is a titled table (pages never read, stale pages, refusals, spoofed agents)", async () => {
  const w = await demoAppWorld();
  try {
    // crawl coverage: the crawlers (charted), then which pages were never read and which are stale
    const coverage = await w.read("behavior_crawl_coverage", { period: "last_30_days" });
    const page = await w.owner.open(await w.insight("Coverage", "behavior_crawl_coverage", "last_30_days"));
    assert.equal(page.status, 200);
    const tables = tablesOf(page.html);
    assert.equal(tables[0].caption, "Crawlers");
    const never = coverage.pages_never_read as Rows, stale = coverage.stale_pages as Rows;
    assert.ok(never.length > 10 && stale.length > 10, "the demo has many of each");
    const neverTable = table(tables, /^Pages never read$/);
    assert.deepEqual(neverTable.rows.map((r) => r[0]), never.slice(0, 10).map((p) => p.page));
    assert.equal(neverTable.more, `and ${(coverage.pages_never_read_total as number) - 10} more`);
    const staleTable = table(tables, /^Stale pages$/);
    assert.deepEqual(staleTable.rows.map((r) => r[0]), stale.slice(0, 10).map((p) => p.page));
    assert.deepEqual(
      staleTable.rows.map((r) => r.at(-1)),
      stale.slice(0, 10).map((p) => String(p.days_since)),
    );
    assert.equal(staleTable.more, `and ${(coverage.stale_pages_total as number) - 10} more`);
    // a list shown whole says nothing more
    assert.equal(table(tables, /^Site files$/).more, null);

    // crawler access: the refused or failed requests per crawler and the spoofed agents
    const access = await w.read("behavior_crawler_access", { period: "last_28_days" });
    const refusals = access.refusals as Rows, spoofed = access.spoofed_agents as Rows;
    assert.ok(refusals.length > 0 && spoofed.length > 0, "the demo has refusals and spoofed agents");
    const accessPage = await w.owner.open(
      await w.insight("Access", "behavior_crawler_access", "last_28_days"),
    );
    const accessTables = tablesOf(accessPage.html);
    assert.equal(accessTables[0].caption, "Crawlers");
    const refused = table(accessTables, /^Refused or failed requests/);
    assert.deepEqual(refused.rows.map((r) => r[0]), refusals.map((r) => r.crawler));
    assert.deepEqual(
      refused.rows.map((r) => r[1]),
      refusals.map((r) => (r.requests as number).toLocaleString("en-US")),
    );
    const agents = table(accessTables, /^Spoofed agents/);
    assert.deepEqual(agents.rows.map((r) => r[0]), spoofed.map((s) => s.crawler));
    assert.deepEqual(
      agents.rows.map((r) => [r[1], r[2]]),
      spoofed.map((s) =>
        [s.requests_claiming_name, s.spoofed_requests].map((n) => (n as number).toLocaleString("en-US"))
      ),
    );
    assert.match(accessPage.html, /<th scope="col">Requests claiming the name<\/th>/);
  } finally {
    w.close();
  }
});
