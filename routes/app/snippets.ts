/** The code a person pastes after creating a key: the SDK READMEs' snippets with this service's address. */

/** Server SDK (sdk/server/README.md). The key itself stays out of it: it goes into an environment variable. */
export function serverSdkSnippet(base: string): string {
  return `import { createCrawlReporter } from "@svc/server-sdk";

export const reporter = createCrawlReporter({
  serverKey: process.env.SVC_SERVER_KEY, // the server key above; keep it on the server
  baseUrl: "${base}",
});`;
}

/** Web SDK (sdk/web/README.md): a public write key is meant to be in the page. */
export function webSdkSnippet(base: string, publicKey: string, siteHost: string | null): string {
  return `<script>
window.bsdk = window.bsdk || function () {
  (window.bsdk.q = window.bsdk.q || []).push(arguments);
};
bsdk("init", { apiKey: "${publicKey}", host: "${base}" });
</script>
<script async src="https://${siteHost ?? "www.example.com"}/assets/sdk.iife.js"></script>`;
}

/**
 * The first call with a new read key. account_overview needs no touchpoint, so it answers for an organization
 * with any number of websites and apps, and names them for the next call.
 */
export function readKeySnippet(base: string): string {
  return `curl -s ${base}/v1/read/account_overview -H "Authorization: Bearer $READ_KEY" \\
  -H 'Content-Type: application/json' -d '{}'`;
}
