/**
 * An MCP client's side of OAuth for tests: the official client's OAuthClientProvider, kept in memory. It
 * identifies itself by a metadata-document URL when given one (else it registers dynamically), and hands the
 * authorization URL to the test, which opens it in Chromium.
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

export class TestOAuthProvider implements OAuthClientProvider {
  client?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier = "";
  discovery?: OAuthDiscoveryState;
  /** Every authorization URL the client asked the person to open, newest last. */
  authorizationUrls: URL[] = [];
  /** Every token set saved, newest last (a refresh adds one). */
  history: StoredOAuthTokens[] = [];

  constructor(
    private redirect: string,
    private name: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return crypto.randomUUID();
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
    this.history.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}
