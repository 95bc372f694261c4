/** The generate command: its options and its output, run as a user runs it. */
import assert from "node:assert/strict";
import { parseEnd } from "../../scripts/generate.ts";

const DAY = 86_400_000;
const END_ISO = "2026-11-20T00:00:00Z";
const END = Date.parse(END_ISO);

Deno.test("generate: --end parses ISO dates and date-times as UTC and refuses anything else", () => {
  assert.equal(parseEnd(undefined, 42), 42);
  assert.equal(parseEnd("2026-11-20", 0), END);
  assert.equal(parseEnd("2026-11-20T00:00:00", 0), END); // never local time
  assert.equal(parseEnd("2026-11-20T02:00:00+02:00", 0), END);
  for (const bad of ["yesterday", "1763596800000", "2026-13-40", "2026-11-20T25:00:00Z", ""]) {
    assert.throws(() => parseEnd(bad, 0), RangeError, bad);
  }
});

async function runCli(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../scripts/generate.ts", import.meta.url).pathname, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("generate CLI: --seed S --end E writes the same NDJSON on every run, all before E", async () => {
  const args = [
    "--org",
    "o",
    "--events",
    "300",
    "--hits",
    "30",
    "--seed",
    "9",
    "--end",
    END_ISO,
    "--ndjson",
    "-",
  ];
  const [a, b] = [await runCli(...args), await runCli(...args)];
  assert.equal(a.code, 0, a.stderr);
  const ls = a.stdout.trim().split("\n");
  assert.equal(ls.length, 330);
  assert.equal(b.stdout, a.stdout);
  for (const l of ls) {
    const x = JSON.parse(l);
    const at = Date.parse(x.kind === "hit" ? x.timestamp : x.device_time);
    assert.ok(at < END && at >= END - 30 * DAY, l);
  }
  const bad = await runCli("--org", "o", "--end", "tomorrow", "--ndjson", "-");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--end/);
  const help = await runCli("--help");
  assert.match(help.stdout, /--end <ISO date-time>/);
});
