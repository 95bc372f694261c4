/**
 * App-review feedback under /admin/v1 (behind the admin token): apps (own touchpoints with a store id, or
 * followed store ids), store credentials (stored encrypted, never shown back), review import (NDJSON or
 * CSV), and fetching on demand (the crons fetch every 30 minutes and refresh listings daily).
 */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { invalid, tooLarge } from "../lib/errors.ts";
import { MB, readJsonBody, refuseEncoded } from "../lib/schemas/request_body.ts";
import { getOrg, getTouchpoint } from "../lib/tenancy/admin.ts";
import { CreateFeedbackApp, FeedbackCredential } from "../lib/schemas/feedback.ts";
import { createApp, deleteApp, getApp, getListing, getStatus, listApps } from "../lib/feedback/store.ts";
import { credentialKind, deleteCredential, saveCredential } from "../lib/feedback/credentials.ts";
import { importReviews } from "../lib/feedback/import_reviews.ts";
import { fetchAppReviews, refreshListing } from "../lib/feedback/fetch_job.ts";

export const MAX_REVIEW_IMPORT_BYTES = 64 * MB;

export function adminFeedbackRoutes(ctx: AppContext): Hono {
  const { kv, clock, config } = ctx.deps;
  const app = new Hono();

  app.post("/orgs/:org/apps", async (c) => {
    const org = await getOrg(ctx.deps, c.req.param("org"));
    const body = await readJsonBody(c.req.raw, CreateFeedbackApp);
    if (body.touchpoint) {
      const tp = await getTouchpoint(ctx.deps, org.id, body.touchpoint);
      const want = tp.kind === "ios" ? "app_store" : tp.kind === "android" ? "google_play" : null;
      if (!want) throw invalid(`touchpoint: ${tp.id} is a website; an app is an iOS or Android touchpoint`);
      if (want !== body.store) throw invalid(`store: an ${tp.kind} touchpoint's store is ${want}`);
    }
    const created = await createApp(kv, clock, org.id, {
      store: body.store,
      store_id: body.store_id,
      touchpoint: body.touchpoint ?? null,
      name: body.name,
      countries: body.countries,
    });
    return c.json(created, 201);
  });

  app.get("/orgs/:org/apps", async (c) => {
    const org = await getOrg(ctx.deps, c.req.param("org"));
    const apps = await Promise.all((await listApps(kv, org.id)).map(async (a) => ({
      ...a,
      listing: await getListing(kv, org.id, a.id),
      status: await getStatus(kv, org.id, a.id),
      credentials: await credentialKind(kv, org.id, a.id),
    })));
    return c.json({ apps });
  });

  app.delete("/orgs/:org/apps/:app", async (c) => {
    await deleteApp(kv, c.req.param("org"), c.req.param("app"));
    return c.body(null, 204);
  });

  app.put("/orgs/:org/apps/:app/credentials", async (c) => {
    const a = await getApp(kv, c.req.param("org"), c.req.param("app"));
    const cred = await readJsonBody(c.req.raw, FeedbackCredential);
    if (a.followed) {
      throw invalid("app: credentials belong to own apps; a followed app is read from public sources");
    }
    if ((cred.kind === "app_store_connect") !== (a.store === "app_store")) {
      throw invalid(
        `kind: an ${a.store} app takes ${a.store === "app_store" ? "app_store_connect" : "google_play"}`,
      );
    }
    await saveCredential(kv, config.credentialsKey, a.org, a.id, cred, clock.now());
    return c.body(null, 204);
  });

  app.delete("/orgs/:org/apps/:app/credentials", async (c) => {
    const a = await getApp(kv, c.req.param("org"), c.req.param("app"));
    await deleteCredential(kv, a.org, a.id);
    return c.body(null, 204);
  });

  app.post("/orgs/:org/apps/:app/reviews/import", async (c) => {
    const a = await getApp(kv, c.req.param("org"), c.req.param("app"));
    // read as sent (64 MB, not through the body guard): a compressed file is named, not misread as its rows
    refuseEncoded(c.req.raw, "send the review file uncompressed");
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > MAX_REVIEW_IMPORT_BYTES) throw tooLarge(`a review import takes at most 64 MB`);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.length > MAX_REVIEW_IMPORT_BYTES) throw tooLarge(`a review import takes at most 64 MB`);
    const format = c.req.query("format");
    const type = format === "csv"
      ? "text/csv"
      : format === "ndjson"
      ? "application/x-ndjson"
      : c.req.header("content-type") ?? null;
    return c.json(await importReviews(kv, a, bytes, type));
  });

  app.post("/orgs/:org/apps/:app/fetch", async (c) => {
    const a = await getApp(kv, c.req.param("org"), c.req.param("app"));
    const listing_error = await refreshListing(ctx.deps, a);
    const outcome = await fetchAppReviews(ctx.deps, a);
    return c.json({ ...outcome, listing_error });
  });

  return app;
}
