/**
 * Settings → Connected assistants: the assistants a person connected (OAuth, routes/connect.tsx), each with
 * its client name, redirect host, organizations, environment, created and last-used times, and Disconnect.
 * /app/assistants is the person's own list across organizations; /app/o/:org/settings/assistants shows the
 * organization's: an owner sees every member's connection reading it and may disconnect any (it stops reading
 * that organization), others see their own. Disconnecting takes effect within seconds (lib/oauth/grants.ts).
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppContext } from "../../lib/context.ts";
import {
  type Connection,
  disconnectFromOrg,
  disconnectOwn,
  orgConnections,
  userConnections,
} from "../../lib/oauth/grants.ts";
import { notFound } from "../../lib/errors.ts";
import { endpoints } from "../../lib/oauth/urls.ts";
import { act, type AppEnv, type C, orgMember, pageFlash, signedIn } from "./http.ts";
import { Layout, orgPath, PostButton } from "./layout.tsx";
import { frameOf } from "./frame.ts";

export const ASSISTANTS_PATH = "/app/assistants";
const OWN = "/assistants"; // ASSISTANTS_PATH under /app
const orgAssistants = (org: string) => orgPath(org, "settings/assistants");

const when = (ms: number | null) =>
  ms === null ? "never" : `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

interface Row extends Connection {
  orgNames: string[];
  /** The person's email, shown to owners looking at other members' connections. */
  person: string | null;
  disconnect: { action: string; confirm: string } | null;
}

const ConnectionCard: FC<{ row: Row; csrf: string }> = ({ row, csrf }) => (
  <article class="card" aria-labelledby={`c-${row.id}`}>
    <h3 id={`c-${row.id}`}>{row.client_name}</h3>
    <dl class="facts">
      {row.person && (
        <>
          <dt>Connected by</dt>
          <dd>{row.person}</dd>
        </>
      )}
      <dt>Returns to</dt>
      <dd>{row.redirect_host}</dd>
      <dt>Reads</dt>
      <dd>{row.orgNames.join(", ")}</dd>
      <dt>Data</dt>
      <dd>{row.env}</dd>
      <dt>Connected</dt>
      <dd>{when(row.created_at)}</dd>
      <dt>Last used</dt>
      <dd>{when(row.last_used_at)}</dd>
    </dl>
    {row.disconnect && (
      <PostButton
        action={row.disconnect.action}
        csrf={csrf}
        label="Disconnect"
        kind="danger"
        confirm={row.disconnect.confirm}
      />
    )}
  </article>
);

const Empty: FC<{ text: string }> = ({ text }) => <p class="card">{text}</p>;

/**
 * How an assistant connects: the service's MCP address in full (the resource its OAuth metadata names:
 * PUBLIC_URL, else the request's origin, and /mcp), in a code element with a Copy button (shown by the app's
 * script; without it the text can be selected). On both pages, with or without connections.
 */
const Connect: FC<{ address: string }> = ({ address }) => (
  <section class="card" aria-labelledby="connect-how">
    <h2 id="connect-how">Connect an assistant</h2>
    <p>
      In Claude, ChatGPT, Cursor or VS Code, add a connector (an MCP server) with this address. The assistant
      opens a sign-in page here, and you choose what it may read.
    </p>
    <p class="row">
      <code id="mcp-address">{address}</code>
      <button type="button" class="secondary" data-copy="#mcp-address" hidden>Copy</button>
    </p>
  </section>
);

const mcpAddress = (ctx: AppContext, c: C) => endpoints(ctx.deps.config, c.req.url).resource;

export function assistantsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const users = ctx.people;

  async function rows(list: Connection[], me: string, disconnect: (c: Connection) => Row["disconnect"]) {
    const out: Row[] = [];
    for (const c of list) {
      const orgNames: string[] = [];
      for (const id of c.orgs) orgNames.push((await ctx.directory.org(id))?.name ?? id);
      const person = c.user === me ? null : (await users.user(c.user))?.email ?? "a former member";
      out.push({ ...c, orgNames, person, disconnect: disconnect(c) });
    }
    return out;
  }

  app.use(OWN, signedIn);
  app.use(`${OWN}/*`, signedIn);

  app.get(OWN, async (c) => {
    const auth = c.get("auth")!;
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const list = await rows(await userConnections(ctx, auth.user.id), auth.user.id, (g) => ({
      action: `${ASSISTANTS_PATH}/${g.id}/disconnect`,
      confirm: `Disconnect ${g.client_name}? It stops reading at once.`,
    }));
    return c.html(
      <Layout title="Connected assistants" frame={frame} flash={flash}>
        <h1>Connected assistants</h1>
        <p class="lead">
          Assistants you connected act as you and read only the organizations you chose. Leaving an
          organization or signing out everywhere ends them too.
        </p>
        {list.length === 0
          ? <Empty text="You have not connected an assistant." />
          : list.map((row) => <ConnectionCard row={row} csrf={frame.csrf} />)}
        <Connect address={mcpAddress(ctx, c)} />
      </Layout>,
    );
  });

  app.post(`${OWN}/:grant/disconnect`, (c) => {
    const auth = c.get("auth")!;
    return act(ctx, c, ASSISTANTS_PATH, async () => {
      if (!(await disconnectOwn(ctx, auth.user.id, c.req.param("grant")))) {
        throw notFound("no such connection of yours; it may have ended already");
      }
      return "Disconnected: the assistant can no longer read anything.";
    });
  });

  const p = "/o/:org/settings/assistants";
  app.use(p, orgMember(ctx, "member"));
  app.use(`${p}/*`, orgMember(ctx, "member"));

  app.get(p, async (c) => {
    const org = c.get("org");
    const me = c.get("membership");
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const owner = me.role === "owner";
    const all = await orgConnections(ctx, org.id);
    const visible = owner ? all : all.filter((g) => g.user === me.user);
    const list = await rows(visible, me.user, (g) => ({
      action: `${orgAssistants(org.id)}/${g.id}/disconnect`,
      confirm: g.user === me.user
        ? `Disconnect ${g.client_name}? It stops reading at once.`
        : `Disconnect ${g.client_name} from ${org.name}? It stops reading ${org.name} at once.`,
    }));
    return c.html(
      <Layout title={`Connected assistants · ${org.name}`} frame={frame} section="assistants" flash={flash}>
        <h1>Connected assistants</h1>
        <p class="lead">
          {owner
            ? `Every assistant a member connected to ${org.name}. As an owner you can disconnect any of them from ${org.name}.`
            : `Assistants you connected that read ${org.name}. Owners see every member's.`}{" "}
          <a href={ASSISTANTS_PATH}>All your connected assistants</a>
        </p>
        {list.length === 0
          ? (
            <Empty
              text={owner ? `No assistant reads ${org.name}.` : `None of your assistants reads ${org.name}.`}
            />
          )
          : list.map((row) => <ConnectionCard row={row} csrf={frame.csrf} />)}
        <Connect address={mcpAddress(ctx, c)} />
      </Layout>,
    );
  });

  app.post(`${p}/:grant/disconnect`, (c) => {
    const org = c.get("org");
    const me = c.get("membership");
    const id = c.req.param("grant");
    return act(ctx, c, orgAssistants(org.id), async () => {
      // A person's own connection ends whole; an owner takes someone else's off this organization only.
      const mine = (await userConnections(ctx, me.user)).some((g) => g.id === id && g.orgs.includes(org.id));
      const done = mine
        ? await disconnectOwn(ctx, me.user, id)
        : me.role === "owner" && await disconnectFromOrg(ctx, org.id, id);
      if (!done) throw notFound(`no such connection reading ${org.name}; it may have ended already`);
      return mine
        ? "Disconnected: the assistant can no longer read anything."
        : `Disconnected from ${org.name}: the assistant can no longer read it.`;
    });
  });

  return app;
}
