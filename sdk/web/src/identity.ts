/**
 * Identity without cookies: an anonymous visitor id kept in storage, a session id that rolls after
 * 30 minutes without events, and the user id set by identify().
 */
import type { Store } from "./storage.ts";

export const SESSION_IDLE_MS = 30 * 60 * 1000;
const AID = "bsdk_aid";
const SID = "bsdk_sid";
const UID = "bsdk_uid";

export class Identity {
  constructor(private store: Store, private now: () => number, private newId: () => string) {}

  anonymousId(): string {
    let id = this.store.get(AID);
    if (!id) {
      id = this.newId();
      this.store.set(AID, id);
    }
    return id;
  }

  /** The current session id; touching it marks activity, so a session ends after 30 idle minutes. */
  sessionId(): string {
    const now = this.now();
    const [id, last] = (this.store.get(SID) ?? "").split("|");
    const current = id && now - Number(last) <= SESSION_IDLE_MS ? id : this.newId();
    this.store.set(SID, `${current}|${now}`);
    return current;
  }

  userId(): string | null {
    return this.store.get(UID);
  }

  setUserId(userId: string): void {
    this.store.set(UID, userId);
  }

  /** Forgets everything: the next event starts a new visitor and a new session. */
  reset(): void {
    for (const k of [AID, SID, UID]) this.store.remove(k);
  }
}

/**
 * Whole visitors are sampled: the same anonymous id always gets the same answer. A rate that is not a number
 * (data-sample-rate="50%") captures every visitor, as no rate does: before, it captured none.
 */
export function inSample(anonymousId: string, rate: number): boolean {
  if (!(rate < 1)) return true;
  if (rate <= 0) return false;
  let h = 2166136261;
  for (let i = 0; i < anonymousId.length; i++) h = Math.imul(h ^ anonymousId.charCodeAt(i), 16777619);
  return (h >>> 0) / 4294967296 < rate;
}

/** crypto.randomUUID where the page is a secure context, else a v4 UUID from getRandomValues. */
export function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === "function") return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
