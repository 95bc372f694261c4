import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import { ensureDemoTenant } from "../../../lib/demo/tenant.ts";
import { JOBS } from "../../../lib/jobs/schedule.ts";
import { createContext } from "../../../lib/context.ts";
import { createApp, listApps } from "../../../lib/feedback/store.ts";
import { fetchAppReviews, isDemoApp, refreshListing, sourceOf } from "../../../lib/feedback/fetch_job.ts";

Deno.test("demo: the dev start's made-up apps never send a request to a store", async () => {
  const calls: string[] = [];
  const deps = await testDeps({
    fetch: (input: string | URL | Request) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return Promise.resolve(new Response("{}", { status: 500 }));
    },
  });
  try {
    const { tenant } = await ensureDemoTenant(deps);
    const apps = await listApps(deps.kv, tenant.org);
    assert.equal(apps.length, 2);
    for (const app of apps) {
      assert.equal(app.demo, true, `${app.name} is marked demo`);
      assert.equal((await sourceOf(deps, app)).source, null);
    }
    // The review and listing jobs as the scheduler runs them, and the admin "fetch now" functions.
    const ctx = createContext(deps);
    for (const name of ["fetch new app-store reviews", "refresh app-store listings"]) {
      await JOBS.find((j) => j.name === name)!.run(ctx);
    }
    for (const app of apps) {
      assert.equal((await fetchAppReviews(deps, app)).pages, 0);
      assert.equal(await refreshListing(deps, app), null);
    }
    assert.equal(calls.length, 0, `no outbound call for demo data: ${calls.join()}`);

    // A real App Store app beside them is still fetched.
    const real = await createApp(deps.kv, deps.clock, tenant.org, {
      store: "app_store",
      store_id: "284882215",
      touchpoint: null,
    });
    assert.equal(isDemoApp(real), false);
    await JOBS.find((j) => j.name === "fetch new app-store reviews")!.run(ctx);
    assert.ok(calls.some((u) => u.includes("284882215")), calls.join());
  } finally {
    deps.kv.close();
  }
});

Deno.test("demo: an app of a dev store seeded before the mark is known by its made-up id and name", () => {
  const base = { id: "a", org: "o", touchpoint: null, followed: true, countries: ["us"], created_at: "" };
  assert.equal(
    isDemoApp({ ...base, store: "app_store", store_id: "6450000001", name: "Demo Shop" }),
    true,
  );
  assert.equal(isDemoApp({ ...base, store: "app_store", store_id: "6450000001", name: "Other" }), false);
});
