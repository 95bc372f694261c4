/**
 * @svc/server-sdk: reports crawler hits from your web server to the service's
 * POST /v1/behavior/server-events, following the spec's sender-side reporting rules.
 */
export {
  type CrawlReporter,
  createCrawlReporter,
  type ReporterOptions,
  type ReporterStats,
} from "./reporter.ts";
export { type FetchHandler, observeFetch, withCrawlReporting } from "./adapters/fetch.ts";
export { type HonoContextLike, honoCrawlReporter } from "./adapters/hono.ts";
export {
  expressCrawlReporter,
  type NodeRequestLike,
  type NodeResponseLike,
  watchNodeResponse,
  withNodeCrawlReporting,
} from "./adapters/node.ts";
export { type AgentVerdict, classifyUserAgent, isSelfContradicting } from "./user_agent.ts";
export { classifyPath, type IgnorePath, type PathKind } from "./paths.ts";
export { decide, type Decision, type ReportCandidate, type ShouldReport, type SkipReason } from "./rules.ts";
export type { CrawlHit, HeaderReader, SeenRequest, SeenResponse, TrustProxy } from "./hit.ts";
export type { DroppedCounts, FetchLike, ServiceCounts } from "./sender.ts";
export type { Logger } from "./log.ts";
export type { Timers } from "./timers.ts";
export { SDK_NAME, SDK_VERSION } from "./version.ts";
