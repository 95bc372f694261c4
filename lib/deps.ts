import type { Clock } from "./clock.ts";
import type { Log } from "./log.ts";
import type { Config } from "./config.ts";
import type { GeoInfo } from "./store/records.ts";
import type { Dns } from "./dns.ts";
import type { Mailer } from "./mail.ts";

/** Address to location and network. Production: DB-IP Lite MMDB + ASN table; tests: a fake. */
export interface Geo {
  lookup(ip: string): GeoInfo;
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
  /** Absent: messages go to the operator log (lib/mail.ts). */
  mail?: Mailer;
}

export const noGeo: Geo = { lookup: () => ({ country: null, city: null, asn: null, as_org: null }) };
