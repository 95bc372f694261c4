import assert from "node:assert/strict";
import { applyRelabels, parseRelabels, readRelabels, REASONS } from "../../fixtures/agents/relabel.ts";

const OFFICE = "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17126; Pro)";
const tsv = (...rows: string[][]) => rows.map((r) => r.join("\t")).join("\n");

Deno.test("relabel: a line moves to its new set with its source, the reason and the new category", () => {
  const out = {
    apps: [`uap-core\t-\tThe Bat! 4.0.0.22`, `uap-core\t-\t${OFFICE}`],
    crawlers: [`crawler-user-agents\tother\tFoo-Bot/1.0`],
  };
  const notes = applyRelabels(
    "grown",
    out,
    parseRelabels(tsv(["grown", "apps", "crawlers", "preview", "office", OFFICE])),
  );
  assert.deepEqual(notes, []);
  assert.deepEqual(out.apps, [`uap-core\t-\tThe Bat! 4.0.0.22`]);
  assert.deepEqual(out.crawlers, [
    `crawler-user-agents\tother\tFoo-Bot/1.0`,
    `uap-core (relabelled: ${REASONS.office})\tpreview\t${OFFICE}`,
  ]);
});

Deno.test("relabel: other parts' relabels, agents already moved and agents gone are told apart", () => {
  const moved = `x (relabelled: ${REASONS.office})\tpreview\t${OFFICE}`;
  const out = { apps: [] as string[], crawlers: [moved] };
  const relabels = parseRelabels(tsv(
    ["grown", "apps", "crawlers", "preview", "office", OFFICE],
    ["grown", "apps", "crawlers", "preview", "office", "Gone/1.0"],
    ["yauaa", "apps", "crawlers", "preview", "office", "Other/1.0"],
  ));
  const notes = applyRelabels("grown", out, relabels);
  assert.deepEqual(out.crawlers, [moved]);
  assert.deepEqual(notes, ["relabel not applied (agent not in apps): Gone/1.0"]);
});

Deno.test("relabel: the first corpus's two-column lines", () => {
  const out = { apps: [`woothee\t${OFFICE}`], crawlers: [] as string[] };
  applyRelabels(
    "first",
    out,
    parseRelabels(tsv(["first", "apps", "crawlers", "-", "office", OFFICE])),
    false,
  );
  assert.deepEqual(out, { apps: [], crawlers: [`woothee (relabelled: ${REASONS.office})\t${OFFICE}`] });
});

Deno.test("relabel: a short line or an unknown reason is an error naming the line", () => {
  assert.throws(() => parseRelabels("# c\ngrown\tapps\tcrawlers"), /line 2: expected 6/);
  assert.throws(() => parseRelabels("grown\tapps\tcrawlers\tpreview\tguess\tX/1"), /unknown reason "guess"/);
});

const PART_DIRS: Record<string, [string, boolean]> = {
  first: ["../../fixtures/user_agents/", false],
  grown: ["../../fixtures/agents/", true],
  added: ["../../fixtures/agents/added/", true],
  opawg: ["../../fixtures/agents/opawg/", true],
  yauaa: ["../../fixtures/agents/yauaa/", true],
};
const SETS = ["crawlers", "automation", "browsers", "apps", "devices"];

async function readPart(dir: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const set of SETS) {
    try {
      const text = await Deno.readTextFile(new URL(`${dir}${set}.txt`, import.meta.url));
      out[set] = text.split("\n").filter((l) => l !== "");
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
  return out;
}

Deno.test("relabel: the committed corpus parts are what a rebuild with the relabel step writes", async () => {
  const relabels = await readRelabels();
  for (const [part, [dir, withCategory]] of Object.entries(PART_DIRS)) {
    const committed = await readPart(dir);
    const mine = relabels.filter((r) => r.part === part);
    // a rebuild from the sources: the relabelled lines back in their old set, under their own source
    const rebuilt: Record<string, string[]> = {};
    for (const [set, lines] of Object.entries(committed)) {
      rebuilt[set] = lines.filter((line) => !line.includes(" (relabelled: "));
    }
    for (const r of mine) {
      const line = committed[r.to].find((l) => l.endsWith(`\t${r.agent}`));
      if (!line) throw new Error(`${part}: relabelled agent missing from ${r.to}: ${r.agent}`);
      const source = line.split("\t")[0].replace(/ \(relabelled: .*$/, "");
      (rebuilt[r.from] ??= []).push(withCategory ? `${source}\t-\t${r.agent}` : `${source}\t${r.agent}`);
    }
    assert.deepEqual(applyRelabels(part, rebuilt, relabels, withCategory), [], part);
    for (const set of Object.keys(committed)) {
      assert.deepEqual(rebuilt[set], committed[set], `${part} ${set}`);
    }
  }
  assert.deepEqual(relabels.length, 140);
});
