/** The guard's decisions, request by request (src/server/security.ts). */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createGuard, sameToken } from "../../src/server/security.ts";

const request = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;
const at = (path: string): URL => new URL(path, "http://x");

describe("the guard", () => {
  const guard = createGuard("secret-token", 4000, "127.0.0.1");
  const ok = { authorization: "Bearer secret-token" };

  it("allows only the loopback names with our port as Host", () => {
    for (const host of ["127.0.0.1:4000", "localhost:4000", "[::1]:4000"])
      expect(guard.check(request({ ...ok, host }), at("/")).ok).toBe(true);
    for (const host of ["evil.example:4000", "127.0.0.1:4001", "127.0.0.1", "192.168.1.2:4000", "localhost.evil.example:4000"])
      expect(guard.check(request({ ...ok, host }), at("/"))).toMatchObject({ ok: false, status: 403 });
  });

  it("bound elsewhere (--host), allows IP literals with our port, never a name (a name can be rebound)", () => {
    const wide = createGuard("secret-token", 4000, "0.0.0.0");
    expect(wide.check(request({ ...ok, host: "192.168.1.2:4000" }), at("/")).ok).toBe(true);
    expect(wide.check(request({ ...ok, host: "[fe80::1]:4000" }), at("/")).ok).toBe(true);
    expect(wide.check(request({ ...ok, host: "rebind.evil.example:4000" }), at("/")).ok).toBe(false);
    expect(wide.check(request({ host: "192.168.1.2:4000" }), at("/"))).toMatchObject({ ok: false, status: 401 });
  });

  it("takes the token from the URL only on the page", () => {
    const host = "127.0.0.1:4000";
    expect(guard.check(request({ host }), at("/?token=secret-token"))).toEqual({ ok: true, via: "url" });
    expect(guard.check(request({ host }), at("/api/sessions?token=secret-token"))).toMatchObject({ ok: false, status: 401 });
    expect(guard.check(request({ host, cookie: "a=b; agentstream-4000=secret-token" }), at("/api/sessions"))).toEqual({
      ok: true,
      via: "cookie",
    });
    expect(guard.check(request({ host, cookie: "agentstream-4001=secret-token" }), at("/api/sessions")).ok).toBe(false);
  });

  it("sets an HttpOnly, SameSite=Strict cookie named for the port (cookies do not tell ports apart)", () => {
    expect(guard.loginCookie).toBe("agentstream-4000=secret-token; HttpOnly; SameSite=Strict; Path=/");
  });

  it("compares tokens whole", () => {
    expect(sameToken("secret-token", "secret-token")).toBe(true);
    expect(sameToken("secret-toke", "secret-token")).toBe(false);
    expect(sameToken("", "secret-token")).toBe(false);
  });
});
