/**
 * A small CLI over the admin API for people who run the service.
 *   deno task admin <command> [args]   with SVC_URL (default http://127.0.0.1:8000) and ADMIN_TOKEN set.
 */
const USAGE = `usage: deno task admin <command>
  org:create <name> [plan] [timezone]        create an organization
  org:get <org>                              show an organization
  org:set <org> <field>=<value>...           change plan, timezone, active (true|false), name
  tp:create <org> <name> <kind> [domain]     create a touchpoint (website needs a domain)
  tp:list <org>                              list touchpoints
  tp:archive <org> <tp>                      archive a touchpoint
  env:set <org> <tp> <env> enabled=<bool> [domain=<d>]
  key:create <org> <kind> <env> [touchpoint] create a key (printed once)
  key:list <org>                             list keys (no secrets)
  key:revoke <org> <key-id>                  revoke a key
  compact <org>                              fold the organization's raw records into read parts now
env: SVC_URL (default http://127.0.0.1:8000), ADMIN_TOKEN (required)`;

const base = (Deno.env.get("SVC_URL") ?? "http://127.0.0.1:8000").replace(/\/$/, "");
const token = Deno.env.get("ADMIN_TOKEN");

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) {
    console.error(`${res.status}: ${text}`);
    Deno.exit(1);
  }
  console.log(text ? JSON.stringify(JSON.parse(text), null, 2) : "done");
}

const parseValue = (v: string): unknown => (v === "true" ? true : v === "false" ? false : v);
const fields = (pairs: string[]) =>
  Object.fromEntries(pairs.map((p) => p.split("=")).map(([k, v]) => [k, parseValue(v)]));

const [cmd, ...a] = Deno.args;
if (!cmd || cmd === "help" || !token) {
  console.log(USAGE);
  Deno.exit(cmd && cmd !== "help" ? 2 : 0);
}
switch (cmd) {
  case "org:create":
    await call("POST", "/orgs", {
      name: a[0],
      ...(a[1] ? { plan: a[1] } : {}),
      ...(a[2] ? { timezone: a[2] } : {}),
    });
    break;
  case "org:get":
    await call("GET", `/orgs/${a[0]}`);
    break;
  case "org:set":
    await call("PATCH", `/orgs/${a[0]}`, fields(a.slice(1)));
    break;
  case "tp:create":
    await call("POST", `/orgs/${a[0]}/touchpoints`, {
      name: a[1],
      kind: a[2],
      ...(a[3] ? { domain: a[3] } : {}),
    });
    break;
  case "tp:list":
    await call("GET", `/orgs/${a[0]}/touchpoints`);
    break;
  case "tp:archive":
    await call("PATCH", `/orgs/${a[0]}/touchpoints/${a[1]}`, { archived: true });
    break;
  case "env:set":
    await call("PATCH", `/orgs/${a[0]}/touchpoints/${a[1]}`, {
      environments: { [a[2]]: fields(a.slice(3)) },
    });
    break;
  case "key:create":
    await call("POST", `/orgs/${a[0]}/keys`, {
      kind: a[1],
      environment: a[2],
      ...(a[3] ? { touchpoint: a[3] } : {}),
    });
    break;
  case "key:list":
    await call("GET", `/orgs/${a[0]}/keys`);
    break;
  case "key:revoke":
    await call("DELETE", `/orgs/${a[0]}/keys/${a[1]}`);
    break;
  case "compact":
    await call("POST", `/orgs/${a[0]}/compact`);
    break;
  default:
    console.error(`unknown command ${cmd}\n${USAGE}`);
    Deno.exit(2);
}
