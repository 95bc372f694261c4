/**
 * The read API's example table (docs/read-api.md, "tool | example question | input") answers as written on the
 * dev start's demo: every input is sent to its tool through the HTTP read API and must answer 200, so a reader
 * who copies one gets an answer, not a 422 (a sign_up "plan" the demo's sign-ups never carry did).
 */
import assert from "node:assert/strict";
import { demoSite } from "../helpers/demo_site.ts";
import { saveCohort } from "../helpers/saved.ts";
import { addMember } from "../../lib/people/members.ts";
import { OWNER } from "../helpers/saved.ts";

/** The rows of the table whose header is "| tool | example question | input |". */
function examples(markdown: string): { tool: string; input: string }[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^\| tool +\| example question +\| input +\|$/.test(l));
  assert.ok(start >= 0, "the example table is in docs/read-api.md");
  const rows: { tool: string; input: string }[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split("|").map((c) => c.trim());
    rows.push({ tool: cells[1].replace(/`/g, ""), input: cells[3].replace(/^`|`$/g, "") });
  }
  return rows;
}

Deno.test("docs: every example input of read-api.md answers 200 on the demo", async () => {
  const { deps, app, tenant } = await demoSite(3_000, { reports: true });
  try {
    // the table's saved-cohort example names "Buyers", which a reader has saved
    await addMember(deps.kv, deps.clock, tenant.org, OWNER.user, "owner");
    await saveCohort(deps, tenant.org, tenant.touchpoint, "Buyers", { kind: "event", event: "purchase" });
    const rows = examples(await Deno.readTextFile(new URL("../../docs/read-api.md", import.meta.url)));
    assert.ok(rows.length >= 20, `${rows.length} examples`);
    const failed: string[] = [];
    for (const { tool, input } of rows) {
      const res = await app.request(`/v1/read/${tool}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.readKey}`, "content-type": "application/json" },
        body: input,
      });
      const text = await res.text();
      if (res.status !== 200) failed.push(`${tool} ${input}: ${res.status} ${text.slice(0, 300)}`);
    }
    assert.deepEqual(failed, []);
  } finally {
    deps.kv.close();
  }
});
