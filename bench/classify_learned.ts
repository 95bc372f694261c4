/**
 * Could a learned score find the crawlers the rules call people? (docs/crawlers.md, the twenty-ninth round.)
 * A logistic regression over hashed features of each agent (lower-cased, digit runs folded to "0": character
 * 3- to 5-grams and words), trained leave-one-part-out on the own corpus parts (never the held-out part): each
 * part is scored by a model trained on the others, on the agents lib/crawl/classify.ts calls a person's.
 * Prints, by threshold, the automated agents among those caught against the people flagged, and the split by
 * the rule that called them people.
 *   deno run -A bench/classify_learned.ts [--words]   (--words: words only, camel case split, no grams)
 */
import { classifyAgent } from "../lib/crawl/classify.ts";

const SETS = ["crawlers", "automation", "browsers", "apps", "devices"];
const PARTS: [string, string, boolean][] = [
  ["first", "../tests/fixtures/user_agents/", false],
  ["grown", "../tests/fixtures/agents/", true],
  ...["added", "uapjs", "opawg", "yauaa", "more", "libs", "uapres", "agentzero", "sniff", "browscap"]
    .map((p): [string, string, boolean] => [p, `../tests/fixtures/agents/${p}/`, true]),
];
const wordsOnly = Deno.args.includes("--words");

type Row = { part: string; automated: boolean; human: boolean; reason: string; features: Int32Array };
const DIM = 1 << 20;
function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0) & (DIM - 1);
}
function features(ua: string): Int32Array {
  const folded = ua.toLowerCase().replace(/\d+/g, "0");
  const out = new Set<number>();
  if (wordsOnly) {
    for (const w of ua.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z]+/)) {
      if (w.length > 1) out.add(hash(`c${w}`));
    }
  } else {
    const padded = ` ${folded} `;
    for (let n = 3; n <= 5; n++) {
      for (let i = 0; i + n <= padded.length; i++) out.add(hash(n + padded.slice(i, i + n)));
    }
  }
  for (const w of folded.split(/[^a-z0]+/)) if (w) out.add(hash(`w${w}`));
  return Int32Array.from(out);
}

const rows: Row[] = [];
for (const [part, dir, withCategory] of PARTS) {
  for (const set of SETS) {
    let text = "";
    try {
      text = await Deno.readTextFile(new URL(`${dir}${set}.txt`, import.meta.url));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) continue;
      throw e;
    }
    for (const line of text.split("\n")) {
      if (!line || line.startsWith("#")) continue;
      const ua = line.split("\t").slice(withCategory ? 2 : 1).join("\t");
      const verdict = classifyAgent(ua);
      rows.push({
        part,
        automated: set === "crawlers" || set === "automation",
        human: verdict.outcome === "human",
        reason: verdict.reason.replace(/:.*/, ""),
        features: features(ua),
      });
    }
  }
}

// a fixed seed, so a run repeats
let seed = 1;
const random = () => ((seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9 >>> 0) / 2 ** 32);

function train(train: Row[]): (r: Row) => number {
  const w = new Float32Array(DIM), g = new Float32Array(DIM).fill(1e-8);
  let bias = 0;
  const pos = train.filter((r) => r.automated).length;
  const weight = [train.length / (2 * (train.length - pos)), train.length / (2 * pos)];
  const order = [...train];
  for (let pass = 0; pass < 6; pass++) {
    for (let k = order.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [order[k], order[j]] = [order[j], order[k]];
    }
    for (const r of order) {
      let z = bias;
      for (const f of r.features) z += w[f];
      const y = r.automated ? 1 : 0;
      const err = (1 / (1 + Math.exp(-z)) - y) * weight[y];
      for (const f of r.features) {
        const grad = err + 1e-5 * w[f];
        g[f] += grad * grad;
        w[f] -= 0.1 * grad / Math.sqrt(g[f]);
      }
      bias -= 0.01 * err;
    }
  }
  return (r) => r.features.reduce((z, f) => z + w[f], bias);
}

const scored: { z: number; automated: boolean; reason: string }[] = [];
for (const [part] of PARTS) {
  const model = train(rows.filter((r) => r.part !== part));
  for (const r of rows) {
    if (r.part === part && r.human) scored.push({ z: model(r), automated: r.automated, reason: r.reason });
  }
}
const auto = scored.filter((s) => s.automated).length, people = scored.length - auto;
console.log(`agents the rules call people: ${auto} automated, ${people} people's (leave-one-part-out)`);
for (const t of [0, 1, 2, 3, 4, 5]) {
  const caught = scored.filter((s) => s.automated && s.z > t).length;
  const flagged = scored.filter((s) => !s.automated && s.z > t).length;
  console.log(
    `threshold ${t}: caught ${caught}/${auto}, people flagged ${flagged} (${
      (100 * flagged / people).toFixed(2)
    }%)`,
  );
}
const byRule = new Map<string, number[]>();
for (const s of scored) {
  const c = byRule.get(s.reason) ?? [0, 0, 0, 0];
  c[s.automated ? 0 : 1]++;
  if (s.z > 2) c[s.automated ? 2 : 3]++;
  byRule.set(s.reason, c);
}
console.log("by the rule that called them people, threshold 2: caught / automated, flagged / people");
for (const [rule, c] of [...byRule].filter(([, c]) => c[0] > 0).sort((a, b) => b[1][0] - a[1][0])) {
  console.log(`  ${rule.padEnd(48)} ${c[2]}/${c[0]}  ${c[3]}/${c[1]}`);
}
