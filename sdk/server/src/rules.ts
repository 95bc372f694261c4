/** The sender-side reporting rules of the spec, applied in order; the first that fails names the skip. */
import type { SeenRequest, SeenResponse } from "./hit.ts";
import { parseTarget } from "./hit.ts";
import { classifyPath, type IgnorePath, type PathKind } from "./paths.ts";
import { classifyUserAgent } from "./user_agent.ts";

/** Facts about a request that a `shouldReport` callback gets to decide on. */
export interface ReportCandidate {
  method: string;
  path: string;
  status: number | null;
  userAgent: string;
  pathKind: PathKind;
  request: SeenRequest;
}

export type ShouldReport = (candidate: ReportCandidate) => boolean;

export interface RuleSettings {
  ignorePaths: readonly IgnorePath[];
  shouldReport?: ShouldReport;
}

export type SkipReason =
  | "method"
  | "path"
  | "content_type"
  | "no_user_agent"
  | "health_probe"
  | "browser"
  | "should_report";

export type Decision = { report: true } | { report: false; reason: SkipReason };

const HTML_TYPES = ["text/html", "application/xhtml+xml"];

export function decide(
  req: SeenRequest,
  res: SeenResponse,
  settings: RuleSettings,
): Decision {
  const method = req.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") return skip("method");

  const path = parseTarget(req.url).pathname;
  const pathKind = classifyPath(path, settings.ignorePaths);
  if (pathKind === "asset" || pathKind === "ignored") return skip("path");

  if (
    pathKind === "page" && !isRedirect(res.status) &&
    !isHtmlOrUnknown(res.contentType)
  ) {
    return skip("content_type");
  }

  const userAgent = req.headers.get("user-agent") ?? "";
  const agent = classifyUserAgent(userAgent);
  if (agent === "missing") return skip("no_user_agent");
  if (agent === "health_probe") return skip("health_probe");
  if (agent === "browser") return skip("browser");

  if (settings.shouldReport) {
    try {
      const candidate = {
        method,
        path,
        status: res.status,
        userAgent,
        pathKind,
        request: req,
      };
      if (settings.shouldReport(candidate) === false) {
        return skip("should_report");
      }
    } catch {
      return skip("should_report");
    }
  }
  return { report: true };
}

function skip(reason: SkipReason): Decision {
  return { report: false, reason };
}

function isRedirect(status: number | null): boolean {
  return status !== null && status >= 300 && status < 400;
}

function isHtmlOrUnknown(contentType: string | null): boolean {
  const type = contentType?.split(";")[0].trim().toLowerCase();
  return !type || HTML_TYPES.includes(type);
}
