/// <reference lib="dom" />
/**
 * The classic-script entry. Starts itself from the tag's data- attributes and replays calls queued by
 * the snippet's stub: `bsdk("track", "signup", { plan: "pro" })`. Also exposes `window.bsdk.init(config)`.
 */
import * as sdk from "./index.ts";
import type { Config } from "./config.ts";

type Command = [keyof typeof sdk | string, ...unknown[]];
type Stub = ((...args: unknown[]) => void) & { q?: ArrayLike<unknown>[] };

const w = globalThis as unknown as { bsdk?: Stub };
const queued = Array.from(w.bsdk?.q ?? [], (a) => Array.from(a) as Command);

function run([name, ...args]: Command): unknown {
  const fn = (sdk as Record<string, unknown>)[name as string];
  if (typeof fn === "function" && name !== "SDK_VERSION") return fn(...args);
  console.warn(`[analytics] unknown command ${String(name)}`);
}

const api = Object.assign((...args: unknown[]) => run(args as Command), sdk);
w.bsdk = api as unknown as Stub;

const tag = document.currentScript as HTMLScriptElement | null;
const d = tag?.dataset;
if (d?.apiKey) {
  const cfg: Config = { apiKey: d.apiKey, host: d.host, environment: d.environment };
  if (d.requireConsent !== undefined) cfg.requireConsent = d.requireConsent !== "false";
  if (d.sampleRate) cfg.sampleRate = Number(d.sampleRate);
  if (d.allowParams) cfg.allowParams = d.allowParams.split(",").map((s) => s.trim());
  if (d.autocapture === "false") cfg.autocapture = false;
  sdk.init(cfg);
}
for (const c of queued) run(c);
