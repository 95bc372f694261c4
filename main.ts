/**
 * The composition root: the only place that reads the environment, opens KV and registers cron jobs.
 *   deno task start   production: PORT, KV_PATH or KV_URL, ADMIN_TOKEN (required), TRUST_PROXY, GEO_* paths
 *   deno task dev     a local KV file under ./data, a demo organization, printed keys and example calls
 */
import { createApp } from "./app.ts";
import { checkConfiguredPaths, ConfigError, openConfiguredKv, readConfig } from "./lib/config.ts";
import { PASSWORD_COST } from "./lib/people/passwords.ts";
import { systemClock } from "./lib/clock.ts";
import { consoleLog } from "./lib/log.ts";
import { systemDns } from "./lib/dns.ts";
import type { Deps } from "./lib/deps.ts";
import { openGeo } from "./lib/enrich/geo.ts";
import { keys } from "./lib/store/keys.ts";
import { devBanner, ensureDemoTenant } from "./lib/demo/tenant.ts";
import { generateSite } from "./lib/demo/site.ts";
import { ensureDemoOwner } from "./lib/people/demo_owner.ts";
import { printMailer, smtpMailer } from "./lib/mail.ts";
import { JOBS, listenToQueue, startJobs } from "./lib/jobs/schedule.ts";
import type { Cron } from "./lib/jobs/cron.ts";
import { generateDueReports, reportJobs } from "./pipeline/reports_generate.ts";
import { issuerPolicy } from "./lib/oauth/urls.ts";
import { guardLimits, serveGuarded } from "./lib/server/connection_guard.ts";

const dev = Deno.args.includes("--dev");
const env = Deno.env.toObject();
/** Bad configuration stops the start with one line naming the variable, never a stack trace. */
async function configured<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`configuration error: ${e.message}`);
    Deno.exit(2);
  }
}
/** A port another process holds, or one this user may not open, stops the start with one line naming PORT. */
function listening<T>(start: () => T): T {
  try {
    return start();
  } catch (e) {
    const taken = e instanceof Deno.errors.AddrInUse;
    if (!taken && !(e instanceof Deno.errors.PermissionDenied)) throw e;
    console.error(
      `configuration error: PORT ${config.port}: ${
        taken
          ? "another process listens on it; stop that one or set PORT to a free port"
          : "not allowed to listen on it"
      }`,
    );
    Deno.exit(2);
  }
}
const config = await configured(() => readConfig(env, { dev }));
await configured(() => checkConfiguredPaths(env));
const log = consoleLog(dev ? "warn" : "info");
const kv = await configured(() => openConfiguredKv(env, config.kvPath, Deno.openKv));

if (dev && !config.adminToken) {
  // A stable local admin token, remembered in the dev store.
  const saved = await kv.get<string>(keys.meta("dev_admin_token"));
  config.adminToken = saved.value ?? `dev_admin_${crypto.randomUUID().replaceAll("-", "")}`;
  if (!saved.value) await kv.set(keys.meta("dev_admin_token"), config.adminToken);
}

if (dev && !config.credentialsKey) {
  // A local key sealing store credentials, remembered in the dev store (production sets CREDENTIALS_KEY).
  const saved = await kv.get<string>(keys.meta("dev_credentials_key"));
  config.credentialsKey = saved.value ??
    btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  if (!saved.value) await kv.set(keys.meta("dev_credentials_key"), config.credentialsKey);
}

const geo = await openGeo({ city: config.geoCityPath, asn: config.geoAsnPath });
for (const w of geo.warnings) log.warn("geo", { warning: w });

const deps: Deps = {
  kv,
  clock: systemClock,
  geo,
  dns: systemDns,
  fetch: globalThis.fetch,
  config,
  log,
  // Invitation and reset links: SMTP when configured, else printed (dev) or the operator log (lib/mail.ts).
  mail: config.smtpUrl ? await smtpMailer(config.smtpUrl, config.mailFrom) : dev ? printMailer() : undefined,
};
const app = createApp(deps);
// This process's long-lived state, all of it: `deps` above (the store, clock, geo, DNS, fetch, mail, log) and
// app.ctx, which createContext (lib/context.ts) builds once from it: the key directory, rate limits, assistant
// sign-in state, people lookups, the crawler verifier, the read engine, the group committer, whether the
// store's queue is still asked (not once it refused, as KV Connect does, or with KV_QUEUE=off), the blocks on
// addresses that sent unknown server keys and the review cache; the jobs and the queue worker run with
// app.ctx. Modules hold only what any process would compute the same: data tables read at load (the crawler
// catalog, word lists), memos of pure functions (zone rules, agent verdicts by user agent) and memos attached
// to objects (WeakMaps keyed by a batch).

// Background work: lib/jobs/schedule.ts lists every recurring job; each body is a plain exported function.
// Report generation runs the read tools, so its job comes from the pipeline (pipeline/reports_generate.ts).
// The dev start generates its demo organization below: until that is done, a job that comes due waits (the
// report job, at minute 23, read the generator's parts mid-write, failed, and left a demo report missing).
const demo = Promise.withResolvers<void>();
if (!dev) demo.resolve();
const cron: Cron = (name, schedule, handler) =>
  Deno.cron(name, schedule, async () => {
    await demo.promise;
    await handler();
  });
startJobs(app.ctx, cron, [...JOBS, ...reportJobs(app.ctx)]);
listenToQueue(app.ctx);
app.ctx.tails.start(); // a question over an old raw tail has it compacted in the background (docs/operations.md)

// Self-hosted, the public port is the connection guard (header and idle deadlines, a per-address cap:
// lib/server/connection_guard.ts); on Deno Deploy the platform terminates connections.
const listen = {
  port: config.port,
  hostname: dev ? "127.0.0.1" : "0.0.0.0",
  onListen: ({ port }: Deno.NetAddr) => console.log(`listening on http://127.0.0.1:${port}`),
};
const guard = await configured(() => guardLimits(env, config.trustProxy));
const server = listening(() =>
  env.DENO_DEPLOYMENT_ID ? Deno.serve(listen, app.fetch) : serveGuarded(listen, app.fetch, guard)
);
// Set before the first request is served: the issuer never follows a Host header in production.
const issuer = issuerPolicy(config, env, server.addr.port);
config.publicUrl = issuer.publicUrl;
if (issuer.warning) log.warn("configuration", { warning: issuer.warning });
if (config.passwordCost < PASSWORD_COST) {
  log.warn("configuration", { warning: `PASSWORD_TEST_COST: new passwords hashed at the tests' lower cost` });
}

if (dev) {
  const { tenant, created } = await ensureDemoTenant(deps);
  if (created) {
    // A small generated history so a newcomer's first questions have answers: 92 days, so the default 28 days
    // and the last month's report compare with whole periods before them (30 days made every change read
    // "+1,360%", and October's report "+10,850%" against September's last day).
    const days = 92;
    console.log(
      `generating the demo organization's ${days} days of history (a minute or two; the keys follow)`,
    );
    const site = await generateSite(deps, {
      org: tenant.org,
      touchpoint: tenant.touchpoint,
      host: tenant.domain,
      events: 40_000,
      days,
      seed: 7,
    });
    console.log(`demo site generated: ${site.events} events, ${site.hits} crawler hits over ${days} days`);
  }
  // The demo's last week and month as reports now, not at the next hourly run.
  if (created) console.log("writing the demo's reports");
  const reports = await generateDueReports(app.ctx);
  if (reports) console.log(`demo reports generated: ${reports}`);
  demo.resolve();
  const base = `http://127.0.0.1:${server.addr.port}`;
  const owner = await ensureDemoOwner(deps, tenant.org, tenant.domain);
  console.log(devBanner(deps, () => crypto.randomUUID(), base, config.adminToken, tenant, owner));
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(sig, async () => {
    await server.shutdown();
    kv.close();
    Deno.exit(0);
  });
}
