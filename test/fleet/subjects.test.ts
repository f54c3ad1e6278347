/** The subject scheme (docs/fleet.md) and how connection settings are read and shown. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fc, test } from "../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { describePublishReport } from "../../src/cli/sinks/publisher-sink.ts";
import { parseSince, parseSinceTime } from "../../src/cli/fleet-options.ts";
import { parseSize } from "../../src/cli/fleet-options.ts";
import { describeServers, toConnectionOptions } from "../../src/fleet/connection.ts";
import { decodeToken, encodeToken, filterSubject, messageId, parseSubject, sessionSubject } from "../../src/fleet/subjects.ts";
import { tempDir } from "../helpers/temp.ts";

describe("subject tokens", () => {
  it("keep letters, digits, - and _; escape everything else, so no token is a wildcard or holds a dot", () => {
    expect(encodeToken("ci-7.example.com")).toBe("ci-7~2Eexample~2Ecom");
    expect(encodeToken("a*b>c d~e")).toBe("a~2Ab~3Ec~20d~7Ee");
    expect(encodeToken("")).toBe("~");
    expect(encodeToken("019a6f2c-5bd1-7c03-a1d5-2f4a1c9e0b77")).toBe("019a6f2c-5bd1-7c03-a1d5-2f4a1c9e0b77");
    expect(encodeToken("é")).toBe("~C3~A9");
  });

  test.prop([fc.string({ unit: "binary", maxLength: 30 })])("decodeToken(encodeToken(x)) === x, and the token is subject-safe", (text) => {
    const token = encodeToken(text);
    expect(token).toMatch(/^[A-Za-z0-9_~-]+$/);
    expect(token.length).toBeLessThanOrEqual(96);
    // Whole tokens (no "~~" hash marker: a "~" of the text is always "~7E") come back as they were.
    const wellFormed = new TextDecoder().decode(new TextEncoder().encode(text)) === text; // no lone surrogate
    if (!token.includes("~~") && wellFormed) expect(decodeToken(token)).toBe(text);
  });

  it("a very long token is shortened with a hash, and stays distinct", () => {
    const a = encodeToken("x".repeat(200));
    const b = encodeToken(`${"x".repeat(199)}y`);
    expect(a.length).toBeLessThanOrEqual(96);
    expect(a).not.toBe(b);
  });

  it("subjects, filters and message ids", () => {
    const subject = sessionSubject({ host: "dev.box", agent: "claude", session: "s-1" });
    expect(subject).toBe("agentstream.dev~2Ebox.claude.s-1");
    expect(parseSubject(subject)).toEqual({ host: "dev.box", agent: "claude", session: "s-1" });
    expect(parseSubject("other.a.b.c")).toBeUndefined();
    expect(filterSubject({})).toBe("agentstream.*.*.*");
    expect(filterSubject({ agent: "codex" })).toBe("agentstream.*.codex.*");
    expect(messageId(subject, 42)).toBe("dev~2Ebox.claude.s-1:42");
  });
});

describe("connection settings", () => {
  it("a password or token written in a URL is never shown", () => {
    expect(describeServers("nats://alice:s3cret@a:4222, nats://b:4222")).toBe("nats://alice:***@a:4222,nats://b:4222");
    expect(describeServers("tls://t0k3n@host:4443")).toBe("tls://***@host:4443");
  });

  it("credentials in the URL become client options; the URL the client gets has none", () => {
    const options = toConnectionOptions({ servers: "nats://alice:p%40ss@127.0.0.1:4222,nats://127.0.0.1:4223" });
    expect(options.servers).toEqual(["nats://127.0.0.1:4222", "nats://127.0.0.1:4223"]);
    expect(options.user).toBe("alice");
    expect(options.pass).toBe("p@ss");
    expect(toConnectionOptions({ servers: "nats://tok@h:1" }).token).toBe("tok");
  });

  it("an unreadable credentials file, or half a client certificate, is a usage error naming the flag", () => {
    expect(() => toConnectionOptions({ servers: "nats://h:1", credsFile: "/nonexistent/x.creds" })).toThrow(/--creds: cannot read/);
    const dir = tempDir("tls");
    writeFileSync(join(dir, "cert.pem"), "x");
    expect(() => toConnectionOptions({ servers: "nats://h:1", tlsCertFile: join(dir, "cert.pem") })).toThrow(/--tls-cert and --tls-key/);
    expect(toConnectionOptions({ servers: "tls://h:1" }).tls).toEqual({});
    expect(() => toConnectionOptions({ servers: " , " })).toThrow(/name a NATS server/);
  });

  it("--since and sizes", () => {
    const now = new Date("2026-11-25T12:00:00Z");
    expect(parseSince("all", now)).toEqual({ kind: "all" });
    expect(parseSince("1234", now)).toEqual({ kind: "sequence", sequence: 1234 });
    expect(parseSince("10m", now)).toEqual({ kind: "time", time: new Date("2026-11-25T11:50:00Z") });
    expect(parseSince("2026-11-25T10:00:00Z", now)).toEqual({ kind: "time", time: new Date("2026-11-25T10:00:00Z") });
    expect(() => parseSince("yesterday", now)).toThrow(/--since takes/);
    // serve --since: a time or a duration, 24 hours back by default; a sequence means nothing for a list of sessions.
    expect(parseSinceTime(undefined, now)).toEqual(new Date("2026-11-24T12:00:00Z"));
    expect(parseSinceTime("1h", now)).toEqual(new Date("2026-11-25T11:00:00Z"));
    expect(parseSinceTime("all", now)).toBeUndefined();
    expect(() => parseSinceTime("1234", now)).toThrow(/serve --since takes a time/);
    expect(parseSize("--spool-max", "256M")).toBe(256 * 1024 * 1024);
    expect(parseSize("--spool-max", "1000")).toBe(1000);
    expect(() => parseSize("--spool-max", "lots")).toThrow(/--spool-max takes a size/);
  });

  it("the report line says a loss plainly", () => {
    const line = describePublishReport({
      servers: "nats://h:1",
      stream: "AGENTSTREAM",
      published: 5,
      duplicates: 0,
      spooled: 9,
      dropped: 4,
      waiting: 2,
      spoolFile: "/s/x.spool",
      adoptedFiles: 0,
    });
    expect(line).toContain("4 DROPPED");
    expect(line).toContain("2 still waiting in /s/x.spool");
  });
});
