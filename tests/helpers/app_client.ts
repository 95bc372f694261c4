/**
 * A small browser stand-in for the app's pages over `app.request` (or a real server's URL): keeps cookies,
 * sends the Origin a browser would, and reads the CSRF token from the last page it got.
 */
export interface Fetcher {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

export interface Page {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

export class AppClient {
  cookies = new Map<string, string>();
  csrf = "";
  /** every page body this client saw (tests search them for secrets) */
  seen: string[] = [];
  constructor(private app: Fetcher, readonly origin = "http://localhost") {}

  #keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  #cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async #send(path: string, init: RequestInit): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.#cookieHeader());
    const res = await this.app.request(path, { ...init, headers, redirect: "manual" });
    this.#keep(res);
    const html = await res.text();
    this.seen.push(html);
    const token = html.match(/name="_csrf" value="([^"]+)"/)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, location: res.headers.get("location"), html, headers: res.headers };
  }

  get(path: string): Promise<Page> {
    return this.#send(path, { method: "GET" });
  }

  /** Follows redirects like a browser (GET after 303). */
  async open(path: string, hops = 5): Promise<Page> {
    let page = await this.get(path);
    while (hops-- > 0 && page.location && page.status >= 300 && page.status < 400) {
      page = await this.get(
        new URL(page.location, "http://x").pathname + new URL(page.location, "http://x").search,
      );
    }
    return page;
  }

  /** Posts a form with this session's CSRF token (unless `csrf: null`) and the browser's Origin. */
  post(
    path: string,
    fields: Record<string, string> | [string, string][],
    opts: { csrf?: string | null; origin?: string | null } = {},
  ) {
    const body = new URLSearchParams(fields);
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null && csrf !== "") body.set("_csrf", csrf);
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    const origin = opts.origin === undefined ? this.origin : opts.origin;
    if (origin !== null) headers.origin = origin;
    return this.#send(path, { method: "POST", headers, body: body.toString() });
  }

  /** Posts, then follows the redirect. */
  async submit(
    path: string,
    fields: Record<string, string>,
    opts: { csrf?: string | null } = {},
  ): Promise<Page> {
    const page = await this.post(path, fields, opts);
    if (page.location && page.status === 303) return await this.open(page.location);
    return page;
  }
}
