/**
 * Google Play Developer API, for own Android apps: an RS256 JWT signed with the service account's key is
 * exchanged at its token_uri for an access token (scope androidpublisher), then
 * `GET /androidpublisher/v3/applications/{package}/reviews` pages through reviews with `token`. Google keeps
 * only the last week of reviews there; older ones come by import.
 */
import { importPKCS8, SignJWT } from "jose";
import type { IncomingReview } from "../types.ts";
import type { GooglePlayCredential } from "../credentials.ts";
import { fetchJson, SourceError, str } from "./http.ts";
import type { Page } from "./page.ts";

export const PLAY_BASE = "https://androidpublisher.googleapis.com";
export const PLAY_SCOPE = "https://www.googleapis.com/auth/androidpublisher";

export async function playAccessToken(
  fetcher: typeof fetch,
  cred: GooglePlayCredential,
  nowMs: number,
): Promise<string> {
  let key: CryptoKey;
  try {
    key = await importPKCS8(cred.private_key, "RS256");
  } catch {
    throw new SourceError("Google Play: the service account's private_key is not a PKCS#8 RSA key");
  }
  const iat = Math.floor(nowMs / 1000);
  const assertion = await new SignJWT({ scope: PLAY_SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(cred.client_email)
    .setAudience(cred.token_uri)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 3600)
    .sign(key);
  const body = await fetchJson(fetcher, cred.token_uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }),
  }, "Google OAuth") as { access_token?: string };
  const token = str(body?.access_token);
  if (!token) throw new SourceError("Google OAuth: no access_token in the answer");
  return token;
}

interface PlayComment {
  userComment?: {
    text?: string;
    lastModified?: { seconds?: string | number; nanos?: number };
    starRating?: number;
    reviewerLanguage?: string;
    appVersionName?: string;
  };
  developerComment?: { text?: string; lastModified?: { seconds?: string | number } };
}

const seconds = (t?: { seconds?: string | number }) =>
  t?.seconds !== undefined ? Number(t.seconds) * 1000 : NaN;

export async function playReviewsPage(
  fetcher: typeof fetch,
  base: string,
  packageName: string,
  token: string,
  cursor: string | null,
): Promise<Page> {
  const url = new URL(`${base}/androidpublisher/v3/applications/${encodeURIComponent(packageName)}/reviews`);
  url.searchParams.set("maxResults", "100");
  if (cursor) url.searchParams.set("token", cursor);
  const body = await fetchJson(
    fetcher,
    url.href,
    { headers: { authorization: `Bearer ${token}` } },
    "Google Play",
  ) as {
    reviews?: { reviewId?: string; authorName?: string; comments?: PlayComment[] }[];
    tokenPagination?: { nextPageToken?: string };
  };
  if (body === null || typeof body !== "object") {
    throw new SourceError("Google Play: the answer is not an object");
  }
  const reviews: IncomingReview[] = [];
  for (const r of body.reviews ?? []) {
    const user = r.comments?.find((c) => c.userComment)?.userComment;
    const dev = r.comments?.find((c) => c.developerComment)?.developerComment;
    const at = seconds(user?.lastModified);
    const rating = Number(user?.starRating);
    if (!r.reviewId || !user || !(rating >= 1 && rating <= 5) || !Number.isFinite(at)) continue;
    // The user comment's text starts with the title and a tab when the review has one.
    const raw = String(user.text ?? "");
    const tab = raw.indexOf("\t");
    const replyText = str(dev?.text);
    reviews.push({
      id: r.reviewId,
      rating,
      title: tab > 0 ? raw.slice(0, tab).trim() : null,
      text: (tab > 0 ? raw.slice(tab + 1) : raw).trim(),
      language: str(user.reviewerLanguage)?.split(/[-_]/)[0].toLowerCase() ?? null,
      country: null,
      version: str(user.appVersionName),
      created_at: at,
      updated_at: at,
      reply: replyText ? { text: replyText, at: seconds(dev?.lastModified) || null } : null,
      author: str(r.authorName),
    });
  }
  return { reviews, next: str(body.tokenPagination?.nextPageToken) };
}
