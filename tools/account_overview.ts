import { z } from "zod";
import { answerSchema } from "../lib/answers/schema.ts";
import { ALLOWANCE_KINDS, ENV_NAMES } from "../lib/store/records.ts";
import { arrivals } from "../lib/parts/arrivals.ts";
import { resetDate } from "../lib/usage/allowance.ts";
import { defineTool } from "../toolkit/tool.ts";
import { getStatus, listApps } from "../lib/feedback/store.ts";

const allowance = z.object({ allowance: z.number(), used: z.number(), left: z.number() });

const output = answerSchema({
  organization: z.object({ id: z.string(), name: z.string(), timezone: z.string(), active: z.boolean() }),
  organizations: z.array(z.object({
    id: z.string(),
    name: z.string(),
    plan: z.string(),
    described: z.boolean().describe("the one this answer describes"),
  })).describe(
    "every organization this connection reads; name one as the `organization` input of any tool to read it",
  ),
  organizations_total: z.number(),
  plan: z.object({
    name: z.string(),
    history_days: z.number(),
    api_access: z.boolean(),
    allowances_reset_on: z.string(),
    allowances: z.object({
      api_requests: allowance,
      assistant_requests: allowance,
      individual_items: allowance,
    }),
  }),
  products: z.array(z.object({ name: z.string(), active: z.boolean(), note: z.string() })),
  products_total: z.number(),
  touchpoints: z.array(z.object({
    id: z.string(),
    name: z.string(),
    kind: z.string(),
    environments: z.array(
      z.object({ name: z.string(), domain: z.string().nullable(), enabled: z.boolean() }),
    ),
  })),
  touchpoints_total: z.number(),
  apps: z.array(z.object({
    id: z.string(),
    name: z.string(),
    store: z.string(),
    store_id: z.string(),
    followed: z.boolean(),
    last_success_at: z.string().nullable().describe("last review fetch that succeeded"),
    last_error_at: z.string().nullable(),
    last_error: z.string().nullable().describe("what the last failed fetch said; the next try backs off"),
    next_attempt_at: z.string().nullable(),
  })).describe("apps whose store reviews are collected (own touchpoints and followed apps)"),
  apps_total: z.number(),
  data: z.object({
    environment: z.string(),
    last_event_at: z.string().nullable(),
    last_crawler_hit_at: z.string().nullable(),
  }),
  example_questions: z.array(z.string()),
});

export default defineTool({
  name: "account_overview",
  description:
    "Start here. Describes the organization this key reads: its plan with the history limit and the " +
    "allowances left this month, the products in use (behavior analytics, crawler visibility), its websites and " +
    "apps with their environments and domains, how fresh the data is, and example questions that fit the data " +
    "present. Takes no input. Use the touchpoint names or ids it lists as the `touchpoint` input of other tools. " +
    "A connection that reads several organizations lists them under `organizations`: pass one's id or name as " +
    "`organization` here and in every other tool.",
  input: z.object({}).strict(),
  output,
  describesAccount: true,
  async run(ctx) {
    const kv = ctx.app.deps.kv;
    const allowances = Object.fromEntries(ALLOWANCE_KINDS.map((k) => {
      const total = ctx.limits.allowances[k];
      const used = ctx.usage[k];
      return [k, { allowance: total, used, left: Math.max(0, total - used) }];
    })) as z.infer<typeof output>["plan"]["allowances"];
    const seen = await arrivals(
      ctx.app.deps,
      ctx.org.id,
      ctx.env,
      (kind) => ctx.app.engine.newestPartArrival(ctx.org.id, ctx.env, kind),
    );
    const hasEvents = seen.events !== null;
    const hasHits = seen.hits !== null;
    const products = [
      {
        name: "behavior analytics",
        active: hasEvents,
        note: hasEvents ? "web SDK events arriving" : "no web events yet: add the web SDK to a site",
      },
      {
        name: "crawler visibility",
        active: hasHits || hasEvents,
        note: hasHits
          ? "server SDK crawler hits arriving"
          : "no crawler hits yet: add the server SDK for full coverage",
      },
    ];
    const touchpoints = ctx.touchpoints.map((t) => ({
      id: t.id,
      name: t.name,
      kind: t.kind,
      environments: ENV_NAMES.filter((e) => t.environments[e]).map((e) => ({
        name: e,
        domain: t.environments[e]?.domain ?? null,
        enabled: t.environments[e]?.enabled ?? false,
      })),
    }));
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    const apps = await Promise.all((await listApps(kv, ctx.org.id)).map(async (a) => {
      const st = await getStatus(kv, ctx.org.id, a.id);
      return {
        id: a.id,
        name: a.name,
        store: a.store,
        store_id: a.store_id,
        followed: a.followed,
        last_success_at: iso(st.last_success_at),
        last_error_at: iso(st.last_error_at),
        last_error: st.last_error,
        next_attempt_at: iso(st.next_attempt_at),
      };
    }));
    products.push({
      name: "app-review feedback",
      active: apps.length > 0,
      note: apps.length ? appsNote(apps) : "no apps yet: add an iOS or Android app's store id",
    });
    const first = ctx.touchpoints[0]?.name ?? "the site";
    const examples: string[] = [];
    if (hasEvents) {
      examples.push(
        `How did ${first} do in the last 7 days compared with the week before?`,
        "Which pages have the highest exit rate this month?",
        "Where do visitors come from, and which AI answer engines send traffic?",
        "Which custom events were recorded in the last 28 days?",
      );
    }
    if (hasHits || hasEvents) {
      examples.push("Which AI crawlers read the site, and which pages has no crawler read?");
      examples.push("Does robots.txt block any AI crawler?");
    }
    if (apps.length) {
      examples.push("What do app reviews complain about this month, and which themes are rising?");
      examples.push("How did the average rating change with the latest app version?");
    }
    if (!examples.length) examples.push("What do I need to install to start collecting data?");
    const notices: string[] = [];
    if (ctx.organizations.length > 1) {
      notices.push(
        `this connection reads ${ctx.organizations.length} organizations; this answer describes ${ctx.org.name}. ` +
          "Name one as `organization` in every call (account_overview too).",
      );
    }
    return {
      scope: ctx.scope({ period: null, touchpoint: null, traffic: "all" }),
      organization: {
        id: ctx.org.id,
        name: ctx.org.name,
        timezone: ctx.org.timezone,
        active: ctx.org.active,
      },
      organizations: ctx.organizations.slice(0, 25).map((o) => ({
        id: o.id,
        name: o.name,
        plan: o.plan,
        described: o.id === ctx.org.id,
      })),
      organizations_total: ctx.organizations.length,
      plan: {
        name: ctx.org.plan,
        history_days: ctx.limits.history_days,
        api_access: ctx.limits.api_access,
        allowances_reset_on: resetDate(ctx.now, ctx.org.timezone),
        allowances,
      },
      products,
      products_total: products.length,
      touchpoints: touchpoints.slice(0, 25),
      touchpoints_total: touchpoints.length,
      apps: apps.slice(0, 25),
      apps_total: apps.length,
      data: {
        environment: ctx.env,
        last_event_at: seen.events === null ? null : new Date(seen.events).toISOString(),
        last_crawler_hit_at: seen.hits === null ? null : new Date(seen.hits).toISOString(),
      },
      example_questions: examples,
      notices,
    };
  },
});

/** "1 own app and 1 followed app in the stores": an own app's reviews are the organization's, a followed one's not. */
function appsNote(apps: { followed: boolean }[]): string {
  const count = (n: number, what: string) => `${n} ${what} app${n === 1 ? "" : "s"}`;
  const followed = apps.filter((a) => a.followed).length, own = apps.length - followed;
  const parts = [own ? count(own, "own") : "", followed ? count(followed, "followed") : ""].filter(Boolean);
  return `${parts.join(" and ")} in the stores`;
}
