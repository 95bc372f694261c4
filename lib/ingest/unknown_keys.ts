/**
 * What this instance last read about the blocks on addresses that sent too many unknown server keys
 * (lib/ingest/server_access.ts sets and checks them in KV).
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";

/** A block set by another instance shows here within this time. */
const RECHECK_MS = 1_000;
const MAX_KNOWN = 50_000;

/**
 * What this instance last read about each address's block (createContext makes the process's one), so a
 * flood of requests from one address costs one KV read a second, not one each.
 */
export class UnknownKeyBlocks {
  #known = new Map<string, { readAt: number; blockedUntil: number }>();
  constructor(private deps: Deps) {}

  async blockedUntil(id: string, now: number): Promise<number> {
    const seen = this.#known.get(id);
    if (seen && now - seen.readAt < RECHECK_MS) return seen.blockedUntil;
    const block = await this.deps.kv.get<number>(keys.unknownKeyBlock(id));
    const blockedUntil = block.value ?? 0;
    if (this.#known.size > MAX_KNOWN) this.#known.clear();
    this.#known.set(id, { readAt: now, blockedUntil });
    return blockedUntil;
  }

  /** Forgets what was read of an address: this instance sees its own new block at once. */
  forget(id: string): void {
    this.#known.delete(id);
  }
}
