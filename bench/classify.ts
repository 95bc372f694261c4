/**
 * How well user agents are told apart, on the labelled corpus in tests/fixtures/user_agents/:
 * recall on known crawlers and on other automation (share flagged automated), and false-positive rates on
 * browsers and on apps (share of people flagged automated), for three classifiers in the same run:
 * - old: the rule before the three-outcome classifier (kept below as it was: catalog token, else any agent not
 *   starting with Mozilla/ or Opera/, else automation words, isbot's patterns or a self-contradicting agent);
 * - isbot: the isbot project's generic patterns alone (catalog.json's generic_bot_patterns; a reference);
 * - new: lib/crawl/classify.ts.
 * Also: the share of known-crawler agents given their own catalog token, and µs per agent (uncached).
 *   deno run -A bench/classify.ts [--show browsers|apps|crawlers|automation] [--by-source]
 * --show lists the agents the new classifier gets wrong in that set, with the rule that decided.
 * Writes bench/results/classify.json. Targets (held-out corpora): crawlers ≥ 99%, browsers ≤ 0.5%, apps ≤ 3%.
 */
import { CATALOG, GENERIC_BOT_PATTERNS } from "../lib/crawl/catalog_data.ts";
import { classifyAgent } from "../lib/crawl/classify.ts";

const SETS = ["crawlers", "automation", "browsers", "apps"] as const;
type SetName = typeof SETS[number];
const AUTOMATED: ReadonlySet<SetName> = new Set(["crawlers", "automation"]);

const dir = new URL("../tests/fixtures/user_agents/", import.meta.url);
const corpus: Record<SetName, { source: string; ua: string }[]> = {
  crawlers: [],
  automation: [],
  browsers: [],
  apps: [],
};
for (const name of SETS) {
  for (const line of (await Deno.readTextFile(new URL(`${name}.txt`, dir))).split("\n")) {
    const tab = line.indexOf("\t");
    if (tab > 0) corpus[name].push({ source: line.slice(0, tab), ua: line.slice(tab + 1) });
  }
}

// ---- the old rule, as lib/crawl/classify.ts had it before the three outcomes ----
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const byMatch = new Map<string, string>();
for (const e of CATALOG) for (const m of e.match) byMatch.set(m, e.token);
const OLD_TOKEN_RE = new RegExp(
  `(?<![a-z0-9])(${
    [...byMatch.keys()].sort((a, b) => b.length - a.length).map(escape).join("|")
  })(?![a-z0-9])`,
);
const OLD_GENERIC_RE = new RegExp(GENERIC_BOT_PATTERNS.join("|"), "i");
const OLD_AUTOMATION_RE = new RegExp(
  [
    "headless",
    "puppeteer",
    "playwright",
    "selenium",
    "webdriver",
    "phantomjs",
    "crawler",
    "spider",
    "fetcher",
    "scraper",
    "\\+https?://",
    "^(?:curl|wget|python|go-http-client|axios|node-fetch|node|undici|okhttp|java|apache-httpclient|libwww-perl|" +
    "postmanruntime|insomnia|guzzlehttp|ruby|php|dart|got|reqwest|deno|bun)\\b",
  ].join("|"),
  "i",
);
function oldSelfContradicting(ua: string): boolean {
  if (/\bEdge\/\d/.test(ua)) {
    const chrome = /\bChrome\/(\d+)/.exec(ua);
    if (chrome && Number(chrome[1]) >= 79) return true;
  }
  if (/^Mozilla\/5\.0 \((?:iPhone|iPad|iPod)\d+,\d+/.test(ua)) return true;
  const ios = /\bCPU (?:iPhone )?OS (\d+)_/.exec(ua);
  const version = /\bVersion\/(\d+)/.exec(ua);
  if (ios && version && /Safari\//.test(ua)) {
    const v = Number(version[1]);
    if (v <= 18 && v > Number(ios[1])) return true;
  }
  return false;
}
/** The old answer: a catalog token, "unknown", or null for a browser. */
function oldClassify(ua: string): string | null {
  const trimmed = ua.trim();
  if (trimmed === "") return "unknown";
  const m = OLD_TOKEN_RE.exec(trimmed.toLowerCase());
  if (m) return byMatch.get(m[1])!;
  if (!/^Mozilla\//.test(trimmed) && !/^Opera\//.test(trimmed)) return "unknown";
  if (OLD_AUTOMATION_RE.test(trimmed) || OLD_GENERIC_RE.test(trimmed) || oldSelfContradicting(trimmed)) {
    return "unknown";
  }
  return null;
}

// ---- measuring ----
type Classifier = { name: string; automated: (ua: string) => boolean; token?: (ua: string) => string | null };
const classifiers: Classifier[] = [
  { name: "old", automated: (ua) => oldClassify(ua) !== null, token: oldClassify },
  { name: "isbot", automated: (ua) => OLD_GENERIC_RE.test(ua) },
  {
    name: "new",
    automated: (ua) => classifyAgent(ua).outcome !== "human",
    token: (ua) => classifyAgent(ua).agent?.token ?? null,
  },
];

const bySource = Deno.args.includes("--by-source");
const showAt = Deno.args.indexOf("--show");
const show = showAt >= 0 ? Deno.args[showAt + 1] as SetName : null;

const pct = (x: number, n: number) => (n ? (100 * x / n).toFixed(2) : "-") + "%";
const results: Record<string, Record<string, unknown>> = {};
console.log(
  `corpus: ${SETS.map((s) => `${s} ${corpus[s].length}`).join(", ")} (tests/fixtures/user_agents)\n`,
);
console.log(
  "classifier  crawlers recall  own token  automation recall  browsers flagged  apps flagged  µs/agent",
);
for (const c of classifiers) {
  const row: Record<string, unknown> = {};
  let agents = 0;
  const t0 = performance.now();
  for (const set of SETS) {
    let flagged = 0;
    for (const { ua } of corpus[set]) if (c.automated(ua)) flagged++;
    agents += corpus[set].length;
    row[set] = { n: corpus[set].length, flagged, rate: flagged / corpus[set].length };
  }
  const us = 1000 * (performance.now() - t0) / agents;
  let own = 0;
  if (c.token) {
    for (const { ua } of corpus.crawlers) {
      const expected = byMatch.get(OLD_TOKEN_RE.exec(ua.toLowerCase())?.[1] ?? "");
      if (expected && c.token(ua) === expected) own++;
    }
    row.own_token = own / corpus.crawlers.length;
  }
  row.us_per_agent = us;
  results[c.name] = row;
  const r = (s: SetName) => row[s] as { n: number; flagged: number };
  console.log(
    [
      c.name.padEnd(10),
      pct(r("crawlers").flagged, r("crawlers").n).padStart(15),
      (c.token ? pct(own, corpus.crawlers.length) : "-").padStart(10),
      pct(r("automation").flagged, r("automation").n).padStart(18),
      pct(r("browsers").flagged, r("browsers").n).padStart(17),
      pct(r("apps").flagged, r("apps").n).padStart(13),
      us.toFixed(1).padStart(9),
    ].join(" "),
  );
}

if (bySource) {
  console.log("\nby source (new; old in brackets): flagged automated");
  for (const set of SETS) {
    const sources = new Map<string, [number, number, number]>();
    for (const { source, ua } of corpus[set]) {
      const s = sources.get(source) ?? [0, 0, 0];
      s[0]++;
      if (classifyAgent(ua).outcome !== "human") s[1]++;
      if (oldClassify(ua) !== null) s[2]++;
      sources.set(source, s);
    }
    for (const [source, [n, nw, old]] of sources) {
      console.log(
        `  ${set.padEnd(11)} ${source.padEnd(20)} ${String(n).padStart(6)}  ${pct(nw, n)} (${pct(old, n)})`,
      );
    }
  }
}

if (show) {
  const wantAutomated = AUTOMATED.has(show);
  const wrong = corpus[show].filter(({ ua }) => (classifyAgent(ua).outcome !== "human") !== wantAutomated);
  console.log(`\n${wrong.length} of ${corpus[show].length} ${show} misjudged by the new classifier:`);
  for (const { source, ua } of wrong) console.log(`  [${classifyAgent(ua).reason}] (${source}) ${ua}`);
}

await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(
  new URL("./results/classify.json", import.meta.url),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      corpus: Object.fromEntries(SETS.map((s) => [s, corpus[s].length])),
      results,
    },
    null,
    2,
  ) + "\n",
);
