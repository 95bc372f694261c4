/// <reference lib="dom" />
/**
 * Key-value storage for identity, consent and the unsent queue. localStorage when the page may use it,
 * else memory (storage blocked, private modes, or the visitor asked not to be remembered).
 */

export interface Store {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
  keys(): string[];
}

export function memoryStore(): Store {
  const m = new Map<string, string>();
  return {
    get: (k) => m.get(k) ?? null,
    set: (k, v) => void m.set(k, v),
    remove: (k) => void m.delete(k),
    keys: () => [...m.keys()],
  };
}

/** Wraps a Web Storage object; any failure (quota, blocked) degrades that call to a no-op. */
export function webStore(s: Storage): Store {
  return {
    get: (k) => {
      try {
        return s.getItem(k);
      } catch {
        return null;
      }
    },
    set: (k, v) => {
      try {
        s.setItem(k, v);
      } catch { /* full or blocked: the value lives for this page only */ }
    },
    remove: (k) => {
      try {
        s.removeItem(k);
      } catch { /* blocked */ }
    },
    keys: () => {
      try {
        return Array.from({ length: s.length }, (_, i) => s.key(i)!).filter((k) => k !== null);
      } catch {
        return [];
      }
    },
  };
}

/** localStorage when it works, else memory. */
export function browserStore(): Store {
  try {
    const s = globalThis.localStorage;
    s.setItem("bsdk_t", "1");
    s.removeItem("bsdk_t");
    return webStore(s);
  } catch {
    return memoryStore();
  }
}
