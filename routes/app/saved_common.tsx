/** What the cohort, insight and dashboard pages share: the editor, the touchpoint choice, the preview script. */
import type { AppContext } from "../../lib/context.ts";
import type { Touchpoint } from "../../lib/store/records.ts";
import type { Editor, SaveOptions } from "../../lib/saved/store.ts";
import { checkInsightInput } from "../../tools/saved_insights.ts";
import type { C } from "./http.ts";

export const editor = (c: C): Editor => ({ user: c.get("auth")!.user.id, role: c.get("membership").role });

export async function activeTouchpoints(ctx: AppContext, org: string): Promise<Touchpoint[]> {
  return (await ctx.directory.touchpoints(org)).filter((t) => !t.archived)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

export async function saveOptions(ctx: AppContext, c: C): Promise<SaveOptions> {
  const org = c.get("org");
  return {
    kv: ctx.deps.kv,
    clock: ctx.deps.clock,
    org: org.id,
    editor: editor(c),
    touchpoints: (await activeTouchpoints(ctx, org.id)).map((t) => t.id),
    checkInsight: checkInsightInput,
  };
}

export const TouchpointSelect = ({ tps, value }: { tps: Touchpoint[]; value?: string }) => (
  <label>
    Website or app
    <select name="touchpoint">
      {tps.map((t) => <option value={t.id} selected={t.id === value}>{t.name}</option>)}
    </select>
  </label>
);

/**
 * The cohort form's live preview: after a change (debounced), the form is posted to its preview address and
 * the answer ("about N visitors in the last 30 days") shown. Without the script, the Preview button does it.
 */
export const SAVED_JS = `
(() => {
  const form = document.getElementById("cohort-form");
  const out = document.getElementById("cohort-preview");
  if (!form || !out) return;
  let timer = 0, asked = 0;
  const ask = async () => {
    const n = ++asked;
    out.textContent = "Counting…";
    try {
      const res = await fetch(form.dataset.preview, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(new FormData(form)),
        credentials: "same-origin",
      });
      const body = await res.json();
      if (n === asked) {
        out.textContent = body.text;
        out.classList.toggle("error", !body.ok);
      }
    } catch {
      if (n === asked) out.textContent = "The preview is not available right now.";
    }
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(ask, 400); };
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  if (form.action.match(/cohorts\\/[^/]+$/) && !form.action.endsWith("/cohorts")) ask();
})();
`;
