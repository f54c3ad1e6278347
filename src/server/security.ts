/**
 * Who may talk to the server (../shared/docs/security-web.md): a request must name us in its Host
 * (no DNS rebinding), come from our own origin when it says where it comes from (no CSRF, no
 * cross-site reads, no other local page), and carry the token of this start (a cookie, a bearer
 * header, or once, in the URL printed at start).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { isIP } from "node:net";

/** A fresh token for one start: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Constant-time comparison (digests first, so lengths never differ). */
export function sameToken(given: string, token: string): boolean {
  const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The headers every response carries: nothing framed, sniffed, referred, embedded or cached. */
export const SECURITY_HEADERS: OutgoingHttpHeaders = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

/** What the guard decided about one request. */
type Verdict =
  | { readonly ok: true; readonly via: "cookie" | "bearer" | "url" }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/** Checks requests for one listening server. */
export interface Guard {
  check(request: IncomingMessage, url: URL): Verdict;
  /** The `Set-Cookie` value that logs a browser in. */
  readonly loginCookie: string;
}

/**
 * @param token this start's token
 * @param port the port actually listened on
 * @param host the address bound; a wildcard or another address adds IP-literal Hosts (never names: a name can be rebound)
 */
export function createGuard(token: string, port: number, host: string): Guard {
  // Cookies are shared by every port of a host: one name per port keeps two servers apart.
  const cookieName = `agentstream-${port}`;
  const loopback = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const anyIp = !isLoopback(host);
  const hostAllowed = (value: string | undefined): boolean => {
    if (value === undefined) return false;
    if (loopback.has(value)) return true;
    if (!anyIp) return false;
    const match = /^(\[[0-9a-fA-F:.]+\]|[0-9.]+):(\d+)$/.exec(value);
    return match !== null && Number(match[2]) === port && isIP((match[1] as string).replace(/^\[|\]$/g, "")) !== 0;
  };
  return {
    loginCookie: `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
    check(request, url) {
      const host = request.headers.host;
      if (!hostAllowed(host)) return { ok: false, status: 403, reason: "foreign Host" };
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== `http://${host}`) return { ok: false, status: 403, reason: "foreign Origin" };
      const site = request.headers["sec-fetch-site"];
      if (site !== undefined && site !== "same-origin" && site !== "none")
        return { ok: false, status: 403, reason: `Sec-Fetch-Site ${site}` };
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (bearer !== undefined) return sameToken(bearer, token) ? { ok: true, via: "bearer" } : denied;
      const cookie = cookieValue(request.headers.cookie, cookieName);
      if (cookie !== undefined && sameToken(cookie, token)) return { ok: true, via: "cookie" };
      const inUrl = url.pathname === "/" ? url.searchParams.get("token") : null;
      if (inUrl !== null && sameToken(inUrl, token)) return { ok: true, via: "url" };
      return denied;
    },
  };
}

const denied: Verdict = { ok: false, status: 401, reason: "missing or wrong token" };

export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost";
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}
