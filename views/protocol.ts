/// <reference lib="dom" />
/**
 * The view's side of MCP Apps over postMessage: JSON-RPC 2.0 with the host (ui/initialize, then
 * ui/notifications/initialized; the host sends tool-input and tool-result; the view may call tools/call).
 * Written against the messages themselves rather than the official App class: that class brings a schema
 * library and bundles to about 600 KB, over the 300 KB a view may weigh; these few messages need none.
 * Lenient on purpose: a result that arrives before the handshake's answer (hosts on the 2025 drafts) is
 * rendered too, and any protocolVersion the host answers with is accepted.
 */
export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface HostContext {
  theme?: "light" | "dark";
  styles?: { variables?: Record<string, string | undefined> };
  containerDimensions?: { width?: number; maxWidth?: number; height?: number; maxHeight?: number };
  toolInfo?: { tool?: { name?: string } };
}

export interface Handlers {
  input(args: Record<string, unknown>): void;
  result(result: ToolResult): void;
  context(ctx: HostContext): void;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class HostBridge {
  #next = 1;
  #pending = new Map<number, Pending>();
  #target: Window;

  constructor(private handlers: Handlers, target: Window = (globalThis as unknown as Window).parent) {
    this.#target = target;
    globalThis.addEventListener("message", (e: MessageEvent) => this.#receive(e));
  }

  #post(message: Record<string, unknown>) {
    // the sandbox has an opaque origin: the host is the only one listening on the parent window
    this.#target.postMessage({ jsonrpc: "2.0", ...message }, "*");
  }

  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.#next++;
    this.#post({ id, method, params });
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
  }

  notify(method: string, params: Record<string, unknown> = {}) {
    this.#post({ method, params });
  }

  #receive(e: MessageEvent) {
    if (e.source !== this.#target) return;
    const m = e.data as
      | {
        jsonrpc?: string;
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
        error?: unknown;
      }
      | null;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && typeof m.id === "number") {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.error) p.reject(new Error((m.error as { message?: string }).message ?? "the host refused"));
      else p.resolve(m.result);
      return;
    }
    const params = (m.params ?? {}) as Record<string, unknown>;
    switch (m.method) {
      case "ui/notifications/tool-input":
        this.handlers.input((params.arguments ?? {}) as Record<string, unknown>);
        break;
      case "ui/notifications/tool-result":
        this.handlers.result(params as ToolResult);
        break;
      case "ui/notifications/host-context-changed":
        this.handlers.context(params as HostContext);
        break;
      case "ui/resource-teardown":
        if (m.id !== undefined) this.#post({ id: m.id, result: {} });
        break;
      case "ping":
        if (m.id !== undefined) this.#post({ id: m.id, result: {} });
        break;
      default:
        // a request this view does not know is answered, so the host does not wait for it
        if (m.id !== undefined) this.#post({ id: m.id, error: { code: -32601, message: `no ${m.method}` } });
    }
  }

  /** The handshake: ui/initialize, then initialized; answers the host context (empty when none came). */
  async connect(): Promise<HostContext> {
    const init = this.request("ui/initialize", {
      protocolVersion: "2026-01-26",
      appInfo: { name: "behavior-read view", version: "1.0.0" },
      appCapabilities: { availableDisplayModes: ["inline"] },
    });
    let ctx: HostContext = {};
    try {
      const r = (await init) as { hostContext?: HostContext } | undefined;
      ctx = r?.hostContext ?? {};
    } catch {
      // a host that refuses the handshake may still send the result: render it anyway
    }
    this.notify("ui/notifications/initialized");
    return ctx;
  }

  /** Asks the same server a new question through the host (tools/call, as the extension describes). */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return await this.request("tools/call", { name, arguments: args }) as ToolResult;
  }

  /** Tells a host with a flexible container how tall the drawing is. */
  watchSize(el: HTMLElement) {
    let last = "";
    new ResizeObserver(() => {
      const width = Math.ceil(el.scrollWidth);
      const height = Math.ceil(el.scrollHeight);
      const key = `${width}x${height}`;
      if (key === last) return;
      last = key;
      this.notify("ui/notifications/size-changed", { width, height });
    }).observe(el);
  }
}
