/** The admin API under /admin/v1: organizations, touchpoints, keys, import, compaction, apps. Bearer ADMIN_TOKEN. */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { notFound, unauthorized } from "../lib/errors.ts";
import { readJsonBody } from "../lib/schemas/request_body.ts";
import { safeEqual } from "../lib/keys/apikeys.ts";
import { CreateKey, CreateOrg, CreateTouchpoint, PatchOrg, PatchTouchpoint } from "../lib/schemas/admin.ts";
import {
  createKey,
  createOrg,
  createTouchpoint,
  getOrg,
  listKeys,
  listTouchpoints,
  patchOrg,
  patchTouchpoint,
  revokeKey,
} from "../lib/tenancy/admin.ts";
import { listQuarantine, listStored } from "../lib/ingest/inspect.ts";
import { adminImportRoutes } from "./admin_import.ts";
import { adminFeedbackRoutes } from "./admin_feedback.ts";
import { adminPeopleRoutes } from "./admin_people.ts";
import { compactOrg } from "../lib/jobs/compact.ts";

/** Longer than any id the service gives (organizations, touchpoints, apps, keys): checked before KV is asked. */
const MAX_ID_CHARS = 255;

export function adminRoutes(ctx: AppContext): Hono {
  const { deps } = ctx;
  const { config } = deps;
  const app = new Hono();

  app.use("*", async (c, next) => {
    const auth = c.req.header("authorization") ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (!config.adminToken || !token || !safeEqual(token, config.adminToken)) {
      throw unauthorized("admin API needs Authorization: Bearer <ADMIN_TOKEN>");
    }
    // an id longer than any we give names nothing (and would not fit a KV key: a 500 before)
    const ids = [...c.req.path.split("/"), c.req.query("touchpoint") ?? ""];
    if (ids.some((id) => id.length > MAX_ID_CHARS)) {
      throw notFound("there is no such organization, touchpoint or app");
    }
    await next();
    // Writes here apply at once in this process; other processes see them within the cache time.
    if (c.req.method !== "GET") ctx.directory.invalidate();
  });

  app.post(
    "/orgs",
    async (c) => c.json(await createOrg(deps, await readJsonBody(c.req.raw, CreateOrg)), 201),
  );
  app.get("/orgs/:org", async (c) => c.json(await getOrg(deps, c.req.param("org"))));
  app.patch(
    "/orgs/:org",
    async (c) => c.json(await patchOrg(deps, c.req.param("org"), await readJsonBody(c.req.raw, PatchOrg))),
  );

  app.post(
    "/orgs/:org/touchpoints",
    async (c) =>
      c.json(
        await createTouchpoint(
          deps,
          c.req.param("org"),
          await readJsonBody(c.req.raw, CreateTouchpoint),
        ),
        201,
      ),
  );
  app.get("/orgs/:org/touchpoints", async (c) => {
    await getOrg(deps, c.req.param("org"));
    return c.json({ touchpoints: await listTouchpoints(deps, c.req.param("org")) });
  });
  app.patch(
    "/orgs/:org/touchpoints/:tp",
    async (c) =>
      c.json(
        await patchTouchpoint(
          deps,
          c.req.param("org"),
          c.req.param("tp"),
          await readJsonBody(c.req.raw, PatchTouchpoint),
        ),
      ),
  );

  app.post(
    "/orgs/:org/keys",
    async (c) =>
      c.json(await createKey(deps, c.req.param("org"), await readJsonBody(c.req.raw, CreateKey)), 201),
  );
  app.get("/orgs/:org/keys", async (c) => c.json({ keys: await listKeys(deps, c.req.param("org")) }));
  app.delete("/orgs/:org/keys/:id", async (c) => {
    await revokeKey(deps, c.req.param("org"), c.req.param("id"));
    return c.body(null, 204);
  });

  // Operator views of what was stored (tests and troubleshooting); never include addresses.
  app.get(
    "/orgs/:org/events",
    async (c) => c.json({ events: await listStored(deps, c.req.param("org"), "ev", c.req.query()) }),
  );
  app.get(
    "/orgs/:org/hits",
    async (c) => c.json({ hits: await listStored(deps, c.req.param("org"), "hit", c.req.query()) }),
  );

  // Records moved aside because they could not be read or decoded (lib/store/readable.ts): count and first 100
  app.get("/orgs/:org/quarantine", async (c) => c.json(await listQuarantine(deps, c.req.param("org"))));

  // Compaction on demand (it also runs every minute): folds every raw record of the organization into
  // parts now, e.g. after an import; answers what it did. Another run in progress makes this one a no-op.
  app.post("/orgs/:org/compact", async (c) => {
    const org = await getOrg(deps, c.req.param("org"));
    return c.json(await compactOrg(deps, org.id, { graceMs: 0 }));
  });

  app.route("/", adminImportRoutes(ctx));
  app.route("/", adminFeedbackRoutes(ctx));
  app.route("/", adminPeopleRoutes(ctx));
  return app;
}
