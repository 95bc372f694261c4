/** Address parsing lives in lib/ip.ts (one parser for the whole service); this path is kept for its importers. */
export * from "../ip.ts";
