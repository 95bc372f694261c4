/**
 * Insights: a read tool and its inputs, saved by name. The form is built from the tool's input JSON Schema
 * (the same one GET /v1/read lists): pick a tool, fill its fields; the inputs are checked against the tool's
 * schema when saved, and a refusal names the field.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { HttpError } from "../../lib/errors.ts";
import { canEdit, createSaved, listSaved, updateSaved } from "../../lib/saved/store.ts";
import type { SavedInsight } from "../../lib/saved/records.ts";
import { insightTools } from "../../tools/saved_insights.ts";
import { listing } from "../../tools/listing.ts";
import { type AppEnv, type C, field, isRefusal, orgMember, pageFlash, redirectWith } from "./http.ts";
import { CsrfField, Layout, orgPath } from "./layout.tsx";
import { Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import { fieldValue, type InputField, inputFields, inputFromForm } from "./saved_form.ts";
import {
  activeTouchpoints,
  deleteSavedAction,
  editor,
  SavedBasics,
  savedOr404,
  SavedRowEnd,
  saveOptions,
} from "./saved_common.tsx";

export const insightsPath = (org: string) => orgPath(org, "insights");

const fieldsOf = (tool: string) => {
  const t = insightTools().find((x) => x.name === tool);
  return t ? inputFields(listing(t).input_schema) : null;
};

const InputRow = ({ f, value }: { f: InputField; value: string }) => {
  const name = `in_${f.name}`;
  const hint = f.description ? <small class="muted">{f.description}</small> : null;
  if (f.type === "boolean") {
    return (
      <label class="check">
        <input type="checkbox" name={name} value="true" checked={value === "true"} /> {f.name} {hint}
      </label>
    );
  }
  if (f.type === "enum") {
    return (
      <label>
        {f.name}
        <select name={name}>
          <option value="" selected={value === ""}>(default)</option>
          {f.options.map((o) => <option value={o} selected={o === value}>{o}</option>)}
        </select>
        {hint}
      </label>
    );
  }
  if (f.type === "json") {
    return (
      <label>
        {f.name}
        {f.required ? " (required)" : ""} — JSON
        <textarea name={name} rows={3}>{value}</textarea>
        {hint}
      </label>
    );
  }
  return (
    <label>
      {f.name}
      {f.required ? " (required)" : ""}
      <input type={f.type === "text" ? "text" : "number"} name={name} value={value} />
      {hint}
    </label>
  );
};

interface Values {
  name: string;
  description: string;
  touchpoint?: string;
  input: Record<string, unknown>;
  raw?: URLSearchParams;
}

async function insightForm(
  ctx: AppContext,
  c: C,
  insight: SavedInsight | null,
  tool: string | null,
  posted?: Values,
  error?: string,
  errorStatus = 422,
) {
  const org = c.get("org");
  const frame = (await frameOf(ctx, c))!;
  const { flash } = error ? { flash: { error } } : await pageFlash(ctx, c);
  const tps = await activeTouchpoints(ctx, org.id);
  const fields = tool ? fieldsOf(tool) : null;
  const v: Values = posted ?? {
    name: insight?.name ?? "",
    description: insight?.description ?? "",
    touchpoint: insight?.touchpoint,
    input: insight?.input ?? {},
  };
  const base = insight ? `${insightsPath(org.id)}/${insight.id}` : `${insightsPath(org.id)}/new`;
  return c.html(
    <Layout
      title={`${insight ? "Edit" : "New"} insight · ${org.name}`}
      frame={frame}
      section="insights"
      flash={flash}
    >
      <h1>{insight ? `Edit insight “${insight.name}”` : "New insight"}</h1>
      <form method="get" action={base} class="row">
        <label>
          Question (read tool)
          <select name="tool" id="tool-choice">
            <option value="" selected={!tool}>(choose)</option>
            {insightTools().map((t) => <option value={t.name} selected={t.name === tool}>{t.name}</option>)}
          </select>
        </label>
        <p>
          <button type="submit" class="secondary">Use this tool</button>
        </p>
      </form>
      {tool && fields && (
        <form
          method="post"
          action={insight ? `${insightsPath(org.id)}/${insight.id}` : insightsPath(org.id)}
          class="stack"
        >
          <CsrfField csrf={frame.csrf} />
          <input type="hidden" name="tool" value={tool} />
          <p class="muted">{insightTools().find((t) => t.name === tool)!.description}</p>
          <SavedBasics tps={tps} name={v.name} touchpoint={v.touchpoint} description={v.description} />
          <fieldset class="card">
            <legend>Inputs of {tool}</legend>
            {fields.map((f) => (
              <InputRow f={f} value={v.raw ? (v.raw.get(`in_${f.name}`) ?? "") : fieldValue(f, v.input)} />
            ))}
          </fieldset>
          <p>
            <button type="submit">{insight ? "Save changes" : "Create insight"}</button>
          </p>
        </form>
      )}
    </Layout>,
    (error ? errorStatus : 200) as 200,
  );
}

async function saveOrShow(ctx: AppContext, c: C, insight: SavedInsight | null) {
  const org = c.get("org");
  const tool = field(c, "tool");
  const body = {
    name: field(c, "name"),
    description: field(c, "description"),
    touchpoint: field(c, "touchpoint"),
  };
  try {
    const fields = fieldsOf(tool);
    if (!fields) throw new HttpError(422, "VALIDATION_ERROR", `tool: choose one of the read tools`);
    const input = inputFromForm(fields, c.get("form"));
    const o = await saveOptions(ctx, c);
    const saved = insight
      ? await updateSaved(o, "insight", insight.id, { ...body, tool, input })
      : await createSaved(o, "insight", { ...body, tool, input });
    return await redirectWith(ctx, c, insightsPath(org.id), { notice: `Insight “${saved.name}” saved.` });
  } catch (err) {
    if (isRefusal(err)) {
      return insightForm(
        ctx,
        c,
        insight,
        tool || null,
        { ...body, input: {}, raw: c.get("form") },
        err.message,
      );
    }
    throw err;
  }
}

export function insightsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv } = ctx.deps;
  const p = "/o/:org/insights";
  app.use(p, orgMember(ctx, "member"));
  app.use(`${p}/*`, orgMember(ctx, "member"));

  app.get(p, async (c) => {
    const org = c.get("org");
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const me = editor(c);
    const tps = await activeTouchpoints(ctx, org.id);
    const items = await listSaved(kv, org.id, "insight");
    return c.html(
      <Layout title={`Insights · ${org.name}`} frame={frame} section="insights" flash={flash}>
        <h1>Insights</h1>
        <p class="lead">
          Questions saved by name. Put them on dashboards, or ask for one by name with{" "}
          <code>behavior_saved</code>.
        </p>
        <p>
          <a class="button" href={`${insightsPath(org.id)}/new`}>New insight</a>
        </p>
        {items.length === 0
          ? <p>No insights yet.</p>
          : (
            <Table columns={["Name", "Question", "Inputs", "Website or app", "Updated"]} actions>
              {items.map((x) => (
                <tr>
                  <td>
                    {canEdit(me, x)
                      ? <a href={`${insightsPath(org.id)}/${x.id}?tool=${x.tool}`}>{x.name}</a>
                      : x.name}
                  </td>
                  <td>{x.tool}</td>
                  <td>
                    <code>{JSON.stringify(x.input)}</code>
                  </td>
                  <SavedRowEnd
                    item={x}
                    tps={tps}
                    me={me}
                    action={`${insightsPath(org.id)}/${x.id}/delete`}
                    csrf={frame.csrf}
                  />
                </tr>
              ))}
            </Table>
          )}
      </Layout>,
    );
  });

  app.get(`${p}/new`, (c) => insightForm(ctx, c, null, c.req.query("tool") || null));
  app.post(p, (c) => saveOrShow(ctx, c, null));

  app.get(`${p}/:id`, async (c) => {
    const insight = await savedOr404(ctx, c, "insight");
    return insightForm(ctx, c, insight, c.req.query("tool") || insight.tool);
  });
  app.post(`${p}/:id`, async (c) => saveOrShow(ctx, c, await savedOr404(ctx, c, "insight")));
  app.post(`${p}/:id/delete`, deleteSavedAction(ctx, "insight", insightsPath));
  return app;
}
