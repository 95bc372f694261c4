/**
 * Every call we print works as printed: the dev start's banner, the README's curl examples and the app's
 * "Try it" snippet after creating a read key, run against a dev-like start (the demo tenant and a generated
 * history) through the real HTTP app. Each must answer 2xx.
 */
import assert from "node:assert/strict";
import { devBanner } from "../../lib/demo/tenant.ts";
import { readKeySnippet } from "../../routes/app/snippets.ts";
import { TEST_ADMIN_TOKEN } from "../helpers/deps.ts";
import { demoSite } from "../helpers/demo_site.ts";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../lib/store/records.ts";

const BASE = "http://127.0.0.1:8000";

/** Shell words of one command: single quotes literal, double quotes expand $VARS, backslash-newline joins. */
function words(command: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  const s = command.replace(/\\\n/g, " ");
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === "'") {
      const end = s.indexOf("'", i + 1);
      cur = (cur ?? "") + s.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      const end = s.indexOf('"', i + 1);
      cur = (cur ?? "") + s.slice(i + 1, end).replace(/\$([A-Z_]+)/g, (_, v) => vars[v] ?? `$${v}`);
      i = end;
    } else if (ch === "#" && cur === null) break;
    else if (/\s/.test(ch)) {
      if (cur !== null) out.push(cur);
      cur = null;
    } else cur = (cur ?? "") + ch;
  }
  if (cur !== null) out.push(cur);
  return out;
}

/** The curl commands in a text: each starts at `curl ` and runs to the end of its continued lines. */
function curls(text: string): string[] {
  return [...text.matchAll(/curl (?:[^\n]*\\\n)*[^\n]*/g)].map((m) => m[0]);
}

function request(argv: string[]): { url: string; init: RequestInit } {
  assert.equal(argv[0], "curl");
  const headers = new Headers();
  let url = "";
  let body: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-H") {
      const h = argv[++i];
      headers.set(h.slice(0, h.indexOf(":")).trim(), h.slice(h.indexOf(":") + 1).trim());
    } else if (a === "-A") headers.set("user-agent", argv[++i]);
    else if (a === "-d") body = argv[++i];
    else if (a.startsWith("-")) continue; // -s, -i
    else url = a;
  }
  // what curl sends when no -A names another agent
  if (!headers.has("user-agent")) headers.set("user-agent", "curl/8.5.0");
  return { url, init: { method: body === undefined ? "GET" : "POST", headers, body } };
}

Deno.test("printed examples: the dev banner, README and read-key snippet answer 2xx on the demo", async () => {
  const { deps, app, tenant } = await demoSite(2_000);
  try {
    const vars = { READ_KEY: tenant.readKey };
    const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
    const examples = [
      ...curls(devBanner(deps, () => crypto.randomUUID(), BASE, TEST_ADMIN_TOKEN, tenant)),
      ...curls(readme).filter((c) => c.includes("127.0.0.1:8000")),
      ...curls(readKeySnippet(BASE)),
    ];
    assert.ok(examples.length >= 8, `found ${examples.length} examples`);
    for (const example of examples) {
      const { url, init } = request(words(example, vars));
      const res = await app.request(url.replace(BASE, ""), init);
      const text = await res.text();
      assert.ok(
        res.status >= 200 && res.status < 300,
        `${res.status} for\n${example}\n${text.slice(0, 400)}`,
      );
    }
    // the banner's web event is a visitor's, as a newcomer who sends it expects to see it counted
    const sent: StoredEvent[] = [];
    for await (const e of deps.kv.list<Uint8Array>({ prefix: keys.rawEvents(tenant.org, "production") })) {
      const ev = unpackEvent(e.value);
      if (ev.anonymous_id === "a1") sent.push(ev);
    }
    assert.ok(sent.length >= 1, "the banner's web event is stored");
    assert.deepEqual(sent.map((e) => e.traffic), sent.map(() => "human"));
  } finally {
    deps.kv.close();
  }
});
