/**
 * account_overview's app-review product says which apps are the organization's own and which it follows (it
 * said "2 apps followed in the stores" for an own app and a competitor).
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";

Deno.test("account_overview: the app-review note tells own apps from followed ones", async () => {
  const s = await openSite({ now: Date.parse("2026-11-20T10:00:00Z") });
  try {
    const note = async () => {
      const a = await s.read("account_overview", {});
      return a.products.find((p: { name: string }) => p.name === "app-review feedback").note;
    };
    assert.equal(await note(), "no apps yet: add an iOS or Android app's store id");
    const ios = await s.admin("POST", "/touchpoints", { name: "Acme iOS", kind: "ios" });
    await s.admin("POST", "/apps", {
      store: "app_store",
      store_id: "284882215",
      name: "Acme",
      touchpoint: ios.id,
    });
    assert.equal(await note(), "1 own app in the stores");
    await s.admin("POST", "/apps", { store: "google_play", store_id: "com.rival.app", name: "Rival" });
    await s.admin("POST", "/apps", { store: "google_play", store_id: "com.other.app", name: "Other" });
    assert.equal(await note(), "1 own app and 2 followed apps in the stores");
  } finally {
    await s.close();
  }
});
