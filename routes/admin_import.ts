/** POST /orgs/:org/import?touchpoint=&environment= (mounted under /admin/v1 behind the admin token). */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { invalid, notFound } from "../lib/errors.ts";
import { importNdjson } from "../lib/ingest/import.ts";
import { decodedBody } from "../lib/schemas/request_body.ts";
import { keys } from "../lib/store/keys.ts";
import { ENV_NAMES, type EnvName, type Org, type Touchpoint } from "../lib/store/records.ts";

export function adminImportRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.post("/orgs/:org/import", async (c) => {
    const { kv } = ctx.deps;
    const tpId = c.req.query("touchpoint");
    const env = (c.req.query("environment") ?? "production") as EnvName;
    if (!tpId) throw invalid("touchpoint: the query parameter is required");
    if (!ENV_NAMES.includes(env)) throw invalid("environment: must be production, staging or development");
    const org = (await kv.get<Org>(keys.org(c.req.param("org")))).value;
    if (!org) throw notFound(`no organization ${c.req.param("org")}`);
    const tp = (await kv.get<Touchpoint>(keys.touchpoint(org.id, tpId))).value;
    if (!tp) throw notFound(`no touchpoint ${tpId} in organization ${org.id}`);
    if (!tp.environments[env]) throw invalid(`environment: touchpoint ${tpId} has no ${env} environment`);
    const body = decodedBody(c.req.raw) ?? new Blob([]).stream(); // a history.ndjson.gz with its coding
    const result = await importNdjson(ctx, { org, touchpoint: tp, env }, body);
    return c.json(result);
  });
  return app;
}
