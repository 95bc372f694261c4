/// <reference lib="dom" />
/**
 * The ES module entry: `import { init, track } from ".../sdk.js"`. Calls before init() are ignored.
 */
import { Client } from "./sdk.ts";
import type { Config } from "./config.ts";

export type { Config } from "./config.ts";
export { SDK_VERSION } from "./config.ts";

let client: Client | null = null;

/** Starts capture once per page; later calls return the first client. */
export function init(config: Config): Client {
  if (!client) {
    if (!/^svc_pk_[A-Za-z0-9_-]{8,120}$/.test(config?.apiKey ?? "")) {
      throw new Error("[analytics] init needs apiKey: the public write key (svc_pk_…)");
    }
    client = new Client(config);
    client.start();
  }
  return client;
}

export const track = (name: string, properties?: Record<string, unknown>) => client?.track(name, properties);
export const identify = (userId: string) => client?.identify(userId);
export const reset = () => client?.reset();
export const optOut = () => client?.optOut();
export const optIn = () => client?.optIn();
export const setConsent = (granted: boolean) => client?.setConsent(granted);
export const flush = () => client?.flush() ?? Promise.resolve();
