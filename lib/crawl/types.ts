/** The crawler catalog's shapes. The data itself is generated into catalog.json by scripts/build_catalog.ts. */
import type { CrawlerCategory } from "../store/records.ts";

/** How a vendor lets a site check that an address really is its crawler. Both empty: nothing documented. */
export interface VerifyMethod {
  /** Ids of published IP lists (lib/crawl/ranges/lists.ts); an address inside any of them is the vendor's. */
  lists: string[];
  /** Host name suffixes the PTR record must end with (".googlebot.com"). */
  rdns: string[];
  /** Whether the PTR name must resolve back to the same address (false only for Baidu's reverse-only check). */
  forward: boolean;
}

/** A catalog entry's category: the stored hit categories of records.ts (feed fetchers and security scanners among them). */
export type CatalogCategory = CrawlerCategory;

export interface CatalogEntry {
  /** The product token as the vendor spells it ("GPTBot"). */
  token: string;
  /** Lower-case user-agent product tokens that identify this crawler (the token itself and its variants). */
  match: string[];
  vendor: string | null;
  category: CatalogCategory;
  verify: VerifyMethod;
  /** Where the entry comes from: crawlers.csv, ai.robots.txt, a crawler list, or a vendor's page (its URL). */
  source: string;
  /**
   * The list's own sample agents show this crawler naming a device or an app stack ("… CFNetwork/… Darwin/…"),
   * so an agent of its name with device details is still the crawler, not an app of the same name.
   */
  sends_device_details?: true;
}

/** A classified automated user agent: a catalog crawler, or token "unknown" for other automation. */
export interface AgentClass {
  token: string; // catalog token, or "unknown"
  vendor: string | null;
  category: CrawlerCategory;
  traffic: "bot" | "ai_agent";
}

/** The three answers the classifier gives about a user agent. */
export type AgentOutcome = "crawler" | "automation" | "human";

export interface AgentVerdict {
  outcome: AgentOutcome;
  /** Which rule decided, in words ("catalog token GPTBot", "HTTP library or tool: curl", "native app"). */
  reason: string;
  /** The crawler ("crawler"), token "unknown" of category "other" ("automation"), or null ("human"). */
  agent: AgentClass | null;
}
