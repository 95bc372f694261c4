/**
 * The dev start's demo world in the app: an owner signed in, the read API's answers, insights saved through the
 * form, and the answer tables of a page as people read them (tests of the app's answer view, over HTTP and in
 * Chromium).
 */
import assert from "node:assert/strict";
import { demoSite } from "./demo_site.ts";
import { joinOrg, orgUrl } from "./people.ts";
import type { Fetcher } from "./app_client.ts";

type Obj = Record<string, unknown>;

export interface Table {
  caption: string;
  rows: string[][];
  more: string | null;
}

const text = (html: string) =>
  html.replace(/<[^>]+>/g, "").replace(/&amp;/g, "&").replace(/&#39;/g, "'").replace(/\s+/g, " ").trim();

/** The answer's tables on a page: caption, cells as read, and the "and N more" under each. */
export function tablesOf(html: string): Table[] {
  return html.split('<div class="table-wrap">').slice(1).map((part) => {
    const end = part.indexOf("</table>");
    const table = part.slice(0, end);
    const after = part.slice(end, end + 300);
    return {
      caption: text(table.match(/<caption>([\s\S]*?)<\/caption>/)?.[1] ?? ""),
      rows: [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
        [...r[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => text(c[1]))
      ).filter((r) => r.length),
      more: after.match(/<p class="muted table-more">([\s\S]*?)<\/p>/)?.[1].replace(/\s+/g, " ").trim() ??
        null,
    };
  });
}

/** The dev start's demo world, an owner signed in, and how to read a tool and open an insight of it. */
export async function demoAppWorld() {
  const { deps, app, tenant } = await demoSite(3_000);
  const owner = await joinOrg(app as Fetcher, tenant.org, "owner@demo.test", "owner");
  const insights = orgUrl(tenant.org, "insights");
  const read = async (tool: string, input: Obj) => {
    const res = await app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ touchpoint: tenant.domain, ...input }),
    });
    assert.equal(res.status, 200);
    return await res.json() as Obj;
  };
  /** Saves an insight through the form and answers its page's path. */
  const insight = async (name: string, tool: string, period: string) => {
    const page = await owner.submit(insights, {
      tool,
      name,
      touchpoint: tenant.touchpoint,
      in_period: period,
    });
    assert.equal(page.status, 200, page.html.slice(0, 300));
    const id = page.html.match(new RegExp(`${insights}/([\\w-]+)/edit`))?.[1];
    assert.ok(id, "the insight's page");
    return `${insights}/${id}`;
  };
  return { deps, app, tenant, owner, read, insight, close: () => deps.kv.close() };
}
