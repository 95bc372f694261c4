/** Deps for unit tests: a :memory: KV, a fake clock, fake geo and DNS, no internet. */
import { FakeClock } from "../../lib/clock.ts";
import { defaultConfig } from "../../lib/config.ts";
import type { Deps, Geo } from "../../lib/deps.ts";
import type { Dns } from "../../lib/dns.ts";
import type { GeoInfo } from "../../lib/store/records.ts";
import { memoryLog } from "../../lib/log.ts";
import { MIN_PASSWORD_COST } from "../../lib/people/passwords.ts";
import { type MemoryMailer, memoryMailer } from "./mail.ts";

export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

/** Geo for tests: 81.2.69.x is Berlin/DE on AS3320, 2.125.160.x London/GB on AS5089, others unknown. */
export const fakeGeo: Geo = {
  lookup(ip: string): GeoInfo {
    if (ip.startsWith("81.2.69.")) {
      return { country: "DE", city: "Berlin", asn: 3320, as_org: "Deutsche Telekom AG" };
    }
    if (ip.startsWith("2.125.160.")) {
      return { country: "GB", city: "London", asn: 5089, as_org: "Virgin Media" };
    }
    return { country: null, city: null, asn: null, as_org: null };
  },
};

/** DNS for tests: answers only what a test put in. */
export class FakeDns implements Dns {
  ptr = new Map<string, string[]>();
  a = new Map<string, string[]>();
  /** name → TXT records (each record's strings joined) */
  txtRecords = new Map<string, string[]>();
  reverse(ip: string) {
    return Promise.resolve(this.ptr.get(ip) ?? []);
  }
  forward(name: string) {
    return Promise.resolve(this.a.get(name) ?? []);
  }
  txt(name: string) {
    return Promise.resolve(this.txtRecords.get(name) ?? []);
  }
}

const offline: typeof fetch = () => Promise.reject(new Error("tests have no internet"));

export async function testDeps(
  over: Partial<Deps> = {},
): Promise<Deps & { clock: FakeClock; log: ReturnType<typeof memoryLog>; mail: MemoryMailer }> {
  const kv = over.kv ?? await Deno.openKv(":memory:");
  return {
    kv,
    clock: new FakeClock(),
    geo: fakeGeo,
    dns: new FakeDns(),
    fetch: offline,
    // the least password cost (production's takes ~0.3 s of CPU a hash); tests/lib/people/passwords_test.ts
    // and the config tests keep production's
    config: {
      ...defaultConfig,
      adminToken: TEST_ADMIN_TOKEN,
      kvPath: ":memory:",
      passwordCost: MIN_PASSWORD_COST,
    },
    log: memoryLog(),
    mail: memoryMailer(),
    ...over,
  } as Deps & { clock: FakeClock; log: ReturnType<typeof memoryLog>; mail: MemoryMailer };
}
