/**
 * What the cohort, insight and dashboard pages share: the editor, the touchpoint choice, loading and deleting
 * the item an address names, a list row's closing cells, the preview script.
 */
import type { FC } from "hono/jsx";
import type { AppContext } from "../../lib/context.ts";
import { notFound } from "../../lib/errors.ts";
import type { Touchpoint } from "../../lib/store/records.ts";
import type { SavedItem, SavedKind, SavedOf } from "../../lib/saved/records.ts";
import { canEdit, deleteSaved, type Editor, getSaved, type SaveOptions } from "../../lib/saved/store.ts";
import { checkInsightInput } from "../../pipeline/saved_insights.ts";
import { frameOf } from "./frame.ts";
import { act, type C, pageFlash } from "./http.ts";
import { PostButton } from "./layout.tsx";
import { shortDate } from "../../lib/format/times.ts";

export const editor = (c: C): Editor => ({ user: c.get("auth")!.user.id, role: c.get("membership").role });

export async function activeTouchpoints(ctx: AppContext, org: string): Promise<Touchpoint[]> {
  return (await ctx.directory.touchpoints(org)).filter((t) => !t.archived)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/**
 * What an editor page starts from: the organization, the page frame, the flash (the form's error when it is
 * shown again) and the touchpoints to choose from.
 */
export async function editorStart(ctx: AppContext, c: C, error?: string) {
  const org = c.get("org");
  const frame = (await frameOf(ctx, c))!;
  const { flash } = error ? { flash: { error } } : await pageFlash(ctx, c);
  return { org, frame, flash, tps: await activeTouchpoints(ctx, org.id) };
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

/** The saved item of this kind the address names (`:id`), or a 404 naming the kind. */
export async function savedOr404<K extends SavedKind>(ctx: AppContext, c: C, kind: K): Promise<SavedOf<K>> {
  const item = await getSaved(ctx.deps.kv, c.get("org").id, kind, c.req.param("id") ?? "");
  if (!item) throw notFound(`no such ${kind}`);
  return item;
}

/** The delete action of a kind's pages: the editor's rights are checked by the store; back to the list. */
export const deleteSavedAction =
  (ctx: AppContext, kind: SavedKind, list: (org: string) => string) => (c: C) =>
    act(ctx, c, list(c.get("org").id), async () => {
      await deleteSaved(ctx.deps.kv, c.get("org").id, editor(c), kind, c.req.param("id") ?? "");
      return `${kind[0].toUpperCase()}${kind.slice(1)} deleted.`;
    });

/** A list row's last cells: its website or app, when it was updated, and Delete for those who may. */
export const SavedRowEnd: FC<
  { item: SavedItem; tps: Touchpoint[]; me: Editor; action: string; csrf: string }
> = (
  { item, tps, me, action, csrf },
) => (
  <>
    <td>{tps.find((t) => t.id === item.touchpoint)?.name ?? "—"}</td>
    <td class="nowrap">
      <time datetime={item.updated_at}>{shortDate(item.updated_at)}</time>
    </td>
    <td>
      {canEdit(me, item) && (
        <PostButton
          action={action}
          csrf={csrf}
          label="Delete"
          confirm={`Delete the ${item.kind} “${item.name}”?`}
        />
      )}
    </td>
  </>
);

/** The fields every saved item has: name and website or app side by side, then the description. */
export const SavedBasics: FC<{ tps: Touchpoint[]; name: string; touchpoint?: string; description: string }> =
  (
    p,
  ) => (
    <>
      <div class="row">
        <label>
          Name
          <input type="text" name="name" required maxlength={80} value={p.name} />
        </label>
        <TouchpointSelect tps={p.tps} value={p.touchpoint} />
      </div>
      <label>
        Description
        <input type="text" name="description" maxlength={500} value={p.description} />
      </label>
    </>
  );

const TouchpointSelect = ({ tps, value }: { tps: Touchpoint[]; value?: string }) => (
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
