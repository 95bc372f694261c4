/**
 * A small CLI over the admin API for people who run the service.
 *   deno task admin <command> [args]   with SVC_URL (default http://127.0.0.1:8000) and ADMIN_TOKEN set.
 * A command's missing argument, a value that is not what it takes, an unknown command or a missing
 * ADMIN_TOKEN is said in one line (exit 2) before any call; what the service refuses is printed as it answers.
 */

interface Command {
  /** the arguments, as the usage shows them: `<org>` required, `[plan]` optional, `...` any number more */
  args: string;
  about: string;
  run: (a: string[]) => Promise<void>;
}

const base = (Deno.env.get("SVC_URL") ?? "http://127.0.0.1:8000").replace(/\/$/, "");
const token = Deno.env.get("ADMIN_TOKEN");

function fail(message: string): never {
  console.error(message);
  Deno.exit(2);
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  raw?: { headers: Record<string, string>; data: BodyInit },
) {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...raw?.headers },
    body: raw ? raw.data : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) {
    console.error(`${res.status}: ${text}`);
    Deno.exit(1);
  }
  console.log(text ? JSON.stringify(JSON.parse(text), null, 2) : "done");
}

/** `field=value` pairs; `true` and `false` are booleans for the fields that take one. */
function fields(pairs: string[], booleans: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(pairs.map((p) => {
    const eq = p.indexOf("=");
    if (eq < 1) fail(`${p}: write field=value`);
    const [k, v] = [p.slice(0, eq), p.slice(eq + 1)];
    if (!booleans.has(k)) return [k, v];
    if (v !== "true" && v !== "false") fail(`${k}=${v}: use ${k}=true or ${k}=false`);
    return [k, v === "true"];
  }));
}

const enc = encodeURIComponent;

const COMMANDS: Record<string, Command> = {
  "org:create": {
    args: "<name> [plan] [timezone]",
    about: "create an organization",
    run: (a) =>
      call("POST", "/orgs", {
        name: a[0],
        ...(a[1] ? { plan: a[1] } : {}),
        ...(a[2] ? { timezone: a[2] } : {}),
      }),
  },
  "org:get": { args: "<org>", about: "show an organization", run: (a) => call("GET", `/orgs/${enc(a[0])}`) },
  "org:set": {
    args: "<org> <field>=<value> ...",
    about: "change plan, timezone, active (true|false), name",
    run: (a) => call("PATCH", `/orgs/${enc(a[0])}`, fields(a.slice(1), new Set(["active"]))),
  },
  "tp:create": {
    args: "<org> <name> <kind> [domain]",
    about: "create a touchpoint (website, ios, android; a website needs a domain)",
    run: (a) =>
      call("POST", `/orgs/${enc(a[0])}/touchpoints`, {
        name: a[1],
        kind: a[2],
        ...(a[3] ? { domain: a[3] } : {}),
      }),
  },
  "tp:list": {
    args: "<org>",
    about: "list touchpoints",
    run: (a) => call("GET", `/orgs/${enc(a[0])}/touchpoints`),
  },
  "tp:archive": {
    args: "<org> <tp>",
    about: "archive a touchpoint",
    run: (a) => call("PATCH", `/orgs/${enc(a[0])}/touchpoints/${enc(a[1])}`, { archived: true }),
  },
  "env:set": {
    args: "<org> <tp> <env> enabled=<true|false> [domain=<d>]",
    about: "turn an environment on or off, or give it a domain",
    run: (a) =>
      call("PATCH", `/orgs/${enc(a[0])}/touchpoints/${enc(a[1])}`, {
        environments: { [a[2]]: fields(a.slice(3), new Set(["enabled"])) },
      }),
  },
  "key:create": {
    args: "<org> <kind> <env> [touchpoint]",
    about: "create a key (printed once)",
    run: (a) =>
      call("POST", `/orgs/${enc(a[0])}/keys`, {
        kind: a[1],
        environment: a[2],
        ...(a[3] ? { touchpoint: a[3] } : {}),
      }),
  },
  "key:list": {
    args: "<org>",
    about: "list keys (no secrets)",
    run: (a) => call("GET", `/orgs/${enc(a[0])}/keys`),
  },
  "key:revoke": {
    args: "<org> <key-id>",
    about: "revoke a key",
    run: (a) => call("DELETE", `/orgs/${enc(a[0])}/keys/${enc(a[1])}`),
  },
  "invite": {
    args: "<org> <email> <role>",
    about: "invite a person (owner, admin or member); prints the invitation link",
    run: (a) => call("POST", `/orgs/${enc(a[0])}/invitations`, { email: a[1], role: a[2] }),
  },
  "members": {
    args: "<org>",
    about: "list members and open invitations",
    run: (a) => call("GET", `/orgs/${enc(a[0])}/members`),
  },
  "import": {
    args: "<org> <tp> <file.ndjson[.gz]> [env]",
    about: "import a history of events and crawler hits (NDJSON, gzip or not)",
    run: async (a) => {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(a[2]);
      } catch (e) {
        fail(`${a[2]}: ${e instanceof Error ? e.message : e}`);
      }
      const query = `touchpoint=${enc(a[1])}&environment=${enc(a[3] ?? "production")}`;
      const headers: Record<string, string> = {
        "content-type": "application/x-ndjson",
        ...(a[2].endsWith(".gz") ? { "content-encoding": "gzip" } : {}),
      };
      await call("POST", `/orgs/${enc(a[0])}/import?${query}`, undefined, { headers, data: file.readable });
    },
  },
  "compact": {
    args: "<org>",
    about: "fold the organization's raw records into read parts now",
    run: (a) => call("POST", `/orgs/${enc(a[0])}/compact`),
  },
};

const USAGE = [
  "usage: deno task admin <command>",
  ...Object.entries(COMMANDS).map(([name, c]) => `  ${`${name} ${c.args}`.padEnd(58)} ${c.about}`),
  "env: SVC_URL (default http://127.0.0.1:8000), ADMIN_TOKEN (required)",
].join("\n");

const [name, ...args] = Deno.args;
if (!name || name === "help") {
  console.log(USAGE);
  Deno.exit(0);
}
const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
if (!command) fail(`unknown command ${name}; the commands:\n${USAGE}`);
const required = command.args.split(" ").filter((w) => w.startsWith("<") && !w.includes("="));
const missing = required.slice(args.length);
if (missing.length) fail(`${name} needs ${missing.join(" ")}: deno task admin ${name} ${command.args}`);
if (!token) fail("ADMIN_TOKEN is not set: the admin API's token (the dev start prints it)");
await command.run(args);
