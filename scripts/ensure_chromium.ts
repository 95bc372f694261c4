/**
 * The browser tests drive Debian's Chromium (/usr/bin/chromium). `deno task test` runs this first so a fresh
 * machine gets it: installed with apt-get when we may (root), otherwise a clear hint. It never fails the run:
 * without Chromium the browser tests fail on their own with the same hint.
 */
const CHROMIUM = "/usr/bin/chromium";

async function exists(path: string) {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function run(cmd: string, args: string[]) {
  const out = await new Deno.Command(cmd, {
    args,
    stdout: "null",
    stderr: "piped",
    env: { DEBIAN_FRONTEND: "noninteractive" },
  })
    .output().catch((e) => ({ success: false, stderr: new TextEncoder().encode(String(e)) }));
  return out;
}

if (!(await exists(CHROMIUM))) {
  const isRoot = Deno.uid?.() === 0;
  if (isRoot && (await exists("/usr/bin/apt-get"))) {
    console.log("installing Debian's chromium for the browser tests (apt-get)…");
    await run("apt-get", ["update", "-qq"]);
    const res = await run("apt-get", ["install", "-y", "-qq", "chromium"]);
    if (!res.success) {
      console.log(`could not install chromium: ${new TextDecoder().decode(res.stderr).slice(0, 500)}`);
    }
  } else {
    console.log("browser tests need Debian's chromium: run `sudo apt-get install -y chromium`");
  }
}
