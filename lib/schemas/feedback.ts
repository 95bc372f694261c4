/** Admin bodies of app-review feedback: apps and their store credentials. */
import { z } from "zod";

export const CreateFeedbackApp = z.strictObject({
  store: z.enum(["app_store", "google_play"], { error: "must be app_store or google_play" }),
  store_id: z.string().trim().min(1).max(200),
  touchpoint: z.string().min(1).max(100).optional().describe(
    "the organization's iOS or Android touchpoint this app is; omitted: a followed app",
  ),
  name: z.string().trim().min(1).max(200).optional(),
  countries: z.array(z.string().regex(/^[A-Za-z]{2}$/, "a two-letter country code")).max(20).optional(),
});

export const FeedbackCredential = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("app_store_connect"),
    issuer_id: z.string().min(1).max(200),
    key_id: z.string().min(1).max(100),
    private_key: z.string().includes("PRIVATE KEY", { message: "must be the .p8 key file's text" }).max(
      10_000,
    ),
  }),
  z.strictObject({
    kind: z.literal("google_play"),
    client_email: z.string().email().max(300),
    private_key: z.string().includes("PRIVATE KEY", { message: "must be the service account's private_key" })
      .max(10_000),
    token_uri: z.string().url().max(500).default("https://oauth2.googleapis.com/token"),
  }),
], { error: "kind must be app_store_connect or google_play" });
