import type { Clock } from "./clock.ts";
import type { Log } from "./log.ts";
import type { Config } from "./config.ts";
import type { GeoInfo } from "./store/records.ts";

/** Address to location and network. Production: DB-IP Lite MMDB + ASN table; tests: a fake. */
export interface Geo {
  lookup(ip: string): GeoInfo;
}

/** The DNS lookups crawler verification needs. Production: Deno.resolveDns; tests: a fake. */
export interface Dns {
  reverse(ip: string): Promise<string[]>;
  forward(name: string): Promise<string[]>; // A and AAAA
}

/** Everything below main.ts gets the outside world through this object, never from globals. */
export interface Deps {
  kv: Deno.Kv;
  clock: Clock;
  geo: Geo;
  dns: Dns;
  fetch: typeof fetch;
  config: Config;
  log: Log;
}

export const noGeo: Geo = { lookup: () => ({ country: null, city: null, asn: null, as_org: null }) };
