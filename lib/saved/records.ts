/** Saved cohorts, insights and dashboards, as stored in KV (keys in lib/store/keys.ts). */
import type { CohortNode } from "./definition.ts";

export type SavedKind = "cohort" | "insight" | "dashboard";
export const SAVED_KINDS: readonly SavedKind[] = ["cohort", "insight", "dashboard"];

interface SavedBase {
  id: string;
  org: string;
  touchpoint: string;
  /** unique in the organization, whatever the kind (compared in lower case) */
  name: string;
  description: string;
  /** the member who created it (a user id; never shown: answers give the author's role) */
  author: string;
  created_at: string;
  updated_at: string;
}

export interface SavedCohort extends SavedBase {
  kind: "cohort";
  definition: CohortNode;
}

export interface SavedInsight extends SavedBase {
  kind: "insight";
  /** a read tool and its inputs, checked against the tool's input schema when saved */
  tool: string;
  input: Record<string, unknown>;
}

export interface SavedDashboard extends SavedBase {
  kind: "dashboard";
  /** insight ids, in order */
  insights: string[];
}

export type SavedItem = SavedCohort | SavedInsight | SavedDashboard;
export type SavedOf<K extends SavedKind> = Extract<SavedItem, { kind: K }>;
