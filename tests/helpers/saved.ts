/** Saved items for tests, stored through the domain functions the app uses (lib/saved/store.ts). */
import type { Deps } from "../../lib/deps.ts";
import { createSaved, type Editor } from "../../lib/saved/store.ts";
import type { CohortNode } from "../../lib/saved/definition.ts";
import type { SavedKind, SavedOf } from "../../lib/saved/records.ts";
import { checkInsightInput } from "../../pipeline/saved_insights.ts";

export const OWNER: Editor = { user: "user-owner", role: "owner" };

export function saveItem<K extends SavedKind>(
  deps: Deps,
  org: string,
  touchpoint: string,
  kind: K,
  body: Record<string, unknown>,
  editor: Editor = OWNER,
): Promise<SavedOf<K>> {
  return createSaved(
    {
      kv: deps.kv,
      clock: deps.clock,
      org,
      editor,
      touchpoints: [touchpoint],
      checkInsight: checkInsightInput,
    },
    kind,
    { touchpoint, ...body },
  );
}

export const saveCohort = (deps: Deps, org: string, tp: string, name: string, definition: CohortNode) =>
  saveItem(deps, org, tp, "cohort", { name, definition });
