/** The dev start's made-up apps (lib/feedback/demo_reviews.ts seeds them): never fetched from a store. */
import type { Store } from "./types.ts";

export const DEMO_APPS: readonly { store: Store; store_id: string; name: string }[] = [
  { store: "app_store", store_id: "6450000001", name: "Demo Shop" },
  { store: "google_play", store_id: "com.rivalmart.shopping", name: "RivalMart" },
];
