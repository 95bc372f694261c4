/**
 * `deno task test`'s last step. The whole suite: the type check of the test files (`deno test --no-run`, the
 * same check `deno test` does first) runs beside the tests (`deno test --no-check`) instead of before them, so
 * its half minute or more of one core overlaps the run. Either failing fails the task; the check's output is
 * printed after the tests' summary. With arguments (a file, a filter) it is plain `deno test -A --parallel`.
 * Not named test.ts: `deno test` would collect that name as a test module and run this script inside itself.
 */
const deno = Deno.execPath();

async function run(args: string[], piped: boolean) {
  const child = new Deno.Command(deno, {
    args,
    stdout: piped ? "piped" : "inherit",
    stderr: piped ? "piped" : "inherit",
  }).spawn();
  if (!piped) return { code: (await child.status).code, text: "" };
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

if (Deno.args.length) Deno.exit((await run(["test", "-A", "--parallel", ...Deno.args], false)).code);

const started = Date.now();
const check = run(["test", "-A", "--no-run", "--parallel"], true).then((r) => ({
  ...r,
  ms: Date.now() - started,
}));
const tests = await run(["test", "-A", "--parallel", "--no-check"], false);
const checked = await check;
if (checked.code === 0) {
  console.log(`type check of the test files: ok (${Math.round(checked.ms / 1000)}s, beside the tests)`);
} else {
  console.log(`type check of the test files FAILED (exit ${checked.code}):\n${checked.text}`);
}
Deno.exit(tests.code || checked.code);
