/** The saved cohort a question names (input `cohort`: its name or id), or a 422 saying what to ask instead. */
import type { AppContext } from "../lib/context.ts";
import { invalid } from "../lib/errors.ts";
import { findSaved, listSaved } from "../lib/saved/store.ts";
import type { SavedCohort } from "../lib/saved/records.ts";
import { definitionSchema } from "../lib/saved/definition.ts";

export { SMALL_GROUP_NOTICE } from "../lib/answers/small_groups.ts";

export async function namedCohort(app: AppContext, org: string, input: unknown): Promise<SavedCohort | null> {
  const name = (input as { cohort?: unknown } | null)?.cohort;
  if (typeof name !== "string") return null;
  const found = await findSaved(app.deps.kv, org, name, "cohort") as SavedCohort | null;
  if (!found) {
    const names = (await listSaved(app.deps.kv, org, "cohort")).slice(0, 25).map((c) => `"${c.name}"`);
    throw invalid(
      `cohort: no saved cohort "${name}"; ${
        names.length ? `saved cohorts: ${names.join(", ")}` : "this organization has saved none yet"
      }`,
    );
  }
  // a definition saved under older rules answers with what is wrong, never a 500
  const ok = definitionSchema.safeParse(found.definition);
  if (!ok.success) {
    throw invalid(
      `cohort "${found.name}" no longer validates (${ok.error.issues[0]?.message}); edit it in the app`,
    );
  }
  return found;
}
