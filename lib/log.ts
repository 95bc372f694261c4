/**
 * Structured log lines. Callers pass facts about requests and jobs, never an IP address,
 * visitor, device or person identifier: `redact` drops such fields defensively anyway.
 */
export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const FORBIDDEN = new Set(["ip", "anonymous_id", "user_id", "session_id", "api_key", "key", "authorization"]);

export function redact(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (!FORBIDDEN.has(k)) out[k] = v;
  return out;
}

export function consoleLog(level: "info" | "warn" | "error" = "info"): Log {
  const rank = { info: 0, warn: 1, error: 2 };
  const write = (lvl: keyof typeof rank, msg: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < rank[level]) return;
    console.log(JSON.stringify({ t: new Date().toISOString(), level: lvl, msg, ...redact(fields) }));
  };
  return {
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

/** A log that keeps lines in memory: tests read them to prove no identifier is logged. */
export function memoryLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push(JSON.stringify({ level, msg, ...redact(fields) }));
  return { lines, info: write("info"), warn: write("warn"), error: write("error") };
}
