/**
 * Where a question's array buffers are made (bench only, `bench/memory.ts --allocs`): the typed array
 * constructors are wrapped so that each buffer of at least `min` bytes made by `new` or `.from` is counted
 * under its call site (the first few frames of the project's own code), and KV's answers under the caller
 * that read them. Peaks of short-lived buffers come from where the most bytes are made, not from what is kept.
 * Not seen: buffers made by `.slice()`/`.map()` (they use the real constructor) and by native code.
 */
const KINDS = [
  "Uint8Array",
  "Int8Array",
  "Uint16Array",
  "Int16Array",
  "Uint32Array",
  "Int32Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
] as const;

export interface Site {
  bytes: number;
  count: number;
}

const sites = new Map<string, Site>();
let on = false;

/** The project's frames of the current stack, innermost first (node_modules and this file left out). */
function where(depth: number): string {
  const stack = new Error().stack?.split("\n").slice(2) ?? [];
  const own = stack
    .filter((l) => !l.includes("node_modules") && !l.includes("alloc_sites"))
    .map((l) => /file:\/\/[^)]*?\/((?:lib|bench|tools|routes)\/[^):]+):(\d+)/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .slice(0, depth)
    .map((m) => `${m[1]}:${m[2]}`);
  return own.join(" < ") || "(outside the project)";
}

function count(bytes: number, min: number, depth: number) {
  if (!on || bytes < min) return;
  const k = where(depth);
  const s = sites.get(k) ?? { bytes: 0, count: 0 };
  s.bytes += bytes;
  s.count++;
  sites.set(k, s);
}

/** Wraps the constructors (and KV's reads) once; counting starts with `start`. */
export function installAllocSites(min = 256 * 1024, depth = 3) {
  const g = globalThis as unknown as Record<string, unknown>;
  for (const name of KINDS) {
    const real = g[name] as unknown as { new (...a: unknown[]): ArrayBufferView; from: unknown };
    const from = real.from as (...a: unknown[]) => ArrayBufferView;
    const wrapped = new Proxy(real, {
      construct(t, args, nt) {
        const out = Reflect.construct(t, args, nt === wrapped ? t : nt) as ArrayBufferView;
        // a view over an existing buffer makes nothing
        if (!(args[0] instanceof ArrayBuffer) && !(args[0] instanceof SharedArrayBuffer)) {
          count(out.byteLength, min, depth);
        }
        return out;
      },
      get(t, p, r) {
        if (p === "from") {
          return (...a: unknown[]) => {
            const out = from.apply(t, a);
            count(out.byteLength, min, depth);
            return out;
          };
        }
        return Reflect.get(t, p, r);
      },
    });
    g[name] = wrapped;
  }
  const kv = Deno.Kv.prototype as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const bytesOf = (v: unknown) => (v instanceof Uint8Array ? v.byteLength : 0);
  const get = kv.get, getMany = kv.getMany;
  kv.get = async function (this: unknown, ...a: unknown[]) {
    const site = on ? "KV get < " + where(depth) : "";
    const out = await get.apply(this, a) as { value: unknown };
    if (site) add(site, bytesOf(out.value), min);
    return out;
  };
  kv.getMany = async function (this: unknown, ...a: unknown[]) {
    const site = on ? "KV getMany < " + where(depth) : "";
    const out = await getMany.apply(this, a) as { value: unknown }[];
    if (site) add(site, out.reduce((s, e) => s + bytesOf(e.value), 0), min);
    return out;
  };
}

function add(site: string, bytes: number, min: number) {
  if (bytes < min / 16) return;
  const s = sites.get(site) ?? { bytes: 0, count: 0 };
  s.bytes += bytes;
  s.count++;
  sites.set(site, s);
}

export function startAllocSites() {
  sites.clear();
  on = true;
}

/** The sites that made the most bytes since `start`, most first; counting stops. */
export function allocSites(top = 25): { site: string; mb: number; count: number }[] {
  on = false;
  return [...sites].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)
    .map(([site, s]) => ({ site, mb: Math.round(s.bytes / 104857.6) / 10, count: s.count }));
}
