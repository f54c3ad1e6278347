/**
 * `agentstream serve` over HTTP from Node (127.0.0.1 only): who is let in, what is listed, and the
 * SSE stream (order, resume without gap or duplicate, live growth, slow viewers, redaction).
 */
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createCatalog, type SessionCatalog } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import { SessionFeed } from "../../src/server/session-feed.ts";
import { httpGet, openSse, type SseFrame } from "../helpers/http.ts";
import { readAll } from "../helpers/read.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const claudeCapture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
const synthetic = join(repoRoot, "test/fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");
const secret = `ghp_${"a1B2c3D4e5".repeat(4)}`;

let dir: string;
let outside: string;
let catalog: SessionCatalog;
let server: SessionServer;
let auth: Record<string, string>;

/** A run log as `agentstream run --log` leaves it while the run goes on: raw, events, no summary yet. */
function runLogLines(): string[] {
  const source = readFileSync(synthetic, "utf8");
  return readAll([source], { redact: false }).events.map((event) => JSON.stringify(event));
}

beforeAll(async () => {
  dir = tempDir("serve");
  outside = tempDir("outside");
  mkdirSync(join(dir, "runs"));
  copyFileSync(synthetic, join(dir, "synthetic.ndjson"));
  writeFileSync(
    join(dir, "secret.ndjson"),
    `${JSON.stringify({ type: "system", subtype: "init", session_id: "s", cwd: "/w", model: "m", tools: [] })}\n${JSON.stringify({
      type: "assistant",
      session_id: "s",
      message: { id: "m1", role: "assistant", content: [{ type: "text", text: `the token is ${secret}` }] },
    })}\n`,
  );
  writeFileSync(join(dir, "notes.txt"), "not an agent log\n".repeat(10));
  copyFileSync(synthetic, join(outside, "escaped.ndjson"));
  symlinkSync(join(outside, "escaped.ndjson"), join(dir, "link-out.ndjson"));
  symlinkSync(outside, join(dir, "folder-out"));
  writeFileSync(join(dir, "runs", "r1.raw"), "");
  writeFileSync(join(dir, "runs", "r1.events.ndjson"), `${runLogLines().slice(0, 3).join("\n")}\n`);
  catalog = await createCatalog({
    paths: [dir, ...(hasShared ? [claudeCapture] : [])],
    read: { dialect: "auto", redact: true },
    pollMs: 50,
    rescanMs: 0,
  });
  server = await startServer({ catalog, assets: { script: "/* app */", css: "/* css */" }, stallMs: 300 });
  auth = { Authorization: `Bearer ${server.token}` };
});

afterAll(async () => {
  await server.close();
});

const sessions = async (): Promise<SessionInfo[]> => JSON.parse((await httpGet(server.origin, "/api/sessions", auth)).body);
const byFile = async (suffix: string): Promise<SessionInfo> => {
  const found = (await sessions()).find((s) => s.file?.endsWith(suffix));
  if (found === undefined) throw new Error(`no session for ${suffix}`);
  return found;
};
const events = (frames: readonly SseFrame[]): AgentEvent[] => frames.filter((f) => f.event === "message").map((f) => JSON.parse(f.data));

describe("who is let in", () => {
  it("listens on 127.0.0.1 only, by default", () => {
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
  });

  it("refuses a foreign Host (DNS rebinding) with 403, token or not", async () => {
    for (const path of ["/", "/api/sessions", "/assets/app.js"]) {
      const reply = await httpGet(server.origin, path, { ...auth, Host: `evil.example:${server.port}` });
      expect(reply.status).toBe(403);
      expect(reply.body).toBe("");
    }
    expect((await httpGet(server.origin, "/api/sessions", { ...auth, Host: `127.0.0.1:${server.port + 1}` })).status).toBe(403);
  });

  it("refuses a foreign Origin and cross-site fetches with 403, token or not", async () => {
    const foreign = ["http://evil.example", `http://127.0.0.1:${server.port + 1}`, `https://127.0.0.1:${server.port}`, "null"];
    for (const origin of foreign) expect((await httpGet(server.origin, "/api/sessions", { ...auth, Origin: origin })).status).toBe(403);
    expect((await httpGet(server.origin, "/api/sessions", { ...auth, "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect((await httpGet(server.origin, "/api/sessions", { ...auth, "Sec-Fetch-Site": "same-site" })).status).toBe(403);
    expect((await httpGet(server.origin, "/api/sessions", { ...auth, Origin: server.origin })).status).toBe(200);
  });

  it("refuses a missing or wrong token with 401", async () => {
    expect((await httpGet(server.origin, "/api/sessions")).status).toBe(401);
    expect((await httpGet(server.origin, "/")).status).toBe(401);
    expect((await httpGet(server.origin, "/api/sessions", { Authorization: "Bearer nope" })).status).toBe(401);
    expect((await httpGet(server.origin, "/api/sessions", { Cookie: `agentstream-${server.port}=nope` })).status).toBe(401);
    expect((await httpGet(server.origin, "/?token=nope")).status).toBe(401);
    // The token in the URL logs in only on the page, never on the API.
    expect((await httpGet(server.origin, `/api/sessions?token=${server.token}`)).status).toBe(401);
  });

  it("exchanges the URL's token for an HttpOnly, SameSite=Strict cookie and a clean URL", async () => {
    const login = await httpGet(server.origin, `/?token=${server.token}`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe("/");
    expect(login.headers["referrer-policy"]).toBe("no-referrer");
    const cookie = login.headers["set-cookie"]?.[0] ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await httpGet(server.origin, "/", { Cookie: cookie.split(";")[0] as string });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<main id="agentstream" data-mode="live">');
    expect(page.body).not.toMatch(/<script>/); // no inline script: the CSP allows none
    expect(page.headers["content-security-policy"]).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("answers no CORS: a preflight gets 405 and no Access-Control header", async () => {
    const reply = await httpGet(server.origin, "/api/sessions", { ...auth, "Access-Control-Request-Method": "GET" }, "OPTIONS");
    expect(reply.status).toBe(405);
    expect(Object.keys(reply.headers).filter((h) => h.startsWith("access-control"))).toEqual([]);
  });

  it("serves no path it was not given: traversal and unknown ids are 404", async () => {
    for (const path of [
      "/assets/../package.json",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/api/sessions/..%2f..%2fetc%2fpasswd/events",
      "/api/sessions/nope/events",
    ])
      expect((await httpGet(server.origin, path, auth)).status).toBe(404);
  });
});

describe("the session list", () => {
  it("lists the logs under the served paths, one per run, by detected dialect", async () => {
    const list = await sessions();
    const files = list.map((s) => s.file);
    expect(files).toContain(join(dir, "synthetic.ndjson"));
    expect(files).toContain(join(dir, "runs", "r1.events.ndjson"));
    expect(files.some((f) => f?.endsWith("notes.txt"))).toBe(false);
    expect(files.some((f) => f?.endsWith("r1.raw"))).toBe(false);
    const synthetic = await byFile("synthetic.ndjson");
    expect(synthetic).toMatchObject({ agent: "claude-code", cwd: expect.any(String), live: false });
    expect(synthetic.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it("skips symbolic links that lead out of the served paths", async () => {
    const files = (await sessions()).map((s) => s.file ?? "");
    expect(files.some((f) => f.includes("link-out") || f.includes("folder-out"))).toBe(false);
  });

  it("refuses a listed log that was swapped for a link out of the served paths before it was opened", async () => {
    copyFileSync(synthetic, join(dir, "swap.ndjson"));
    const session = await byFile("swap.ndjson");
    rmSync(join(dir, "swap.ndjson"));
    symlinkSync(join(outside, "escaped.ndjson"), join(dir, "swap.ndjson"));
    expect((await httpGet(server.origin, `/api/sessions/${session.id}/events`, auth)).status).toBe(404);
    expect((await sessions()).some((s) => s.file?.endsWith("swap.ndjson"))).toBe(false);
  });

  it.skipIf(!hasShared)("lists a served file: a real Claude Code capture with its tokens and cost", async () => {
    const capture = await byFile("archistrator_success_with_tools.jsonl");
    const expected = readAll([readFileSync(claudeCapture)], { redact: true }).summary;
    expect(capture).toMatchObject({ status: expected.status, cost: expected.costUsd, tokens: expected.usage, live: false });
  });

  it("shows a run log without its summary as live and running", async () => {
    expect(await byFile("r1.events.ndjson")).toMatchObject({ live: true, status: "running" });
  });

  it("keeps a live run log's facts current as it grows, and says when its run is over", async () => {
    const lines = runLogLines();
    writeFileSync(join(dir, "runs", "r2.raw"), "");
    writeFileSync(join(dir, "runs", "r2.events.ndjson"), `${lines.slice(0, 2).join("\n")}\n${lines[2]?.slice(0, 10)}`);
    expect(await byFile("r2.events.ndjson")).toMatchObject({ live: true, status: "running", events: 2 });
    appendFileSync(join(dir, "runs", "r2.events.ndjson"), `${lines[2]?.slice(10)}\n${lines.slice(3).join("\n")}\n`);
    // The agent's final record is in: the session succeeded, though the run has not written its summary yet.
    expect(await byFile("r2.events.ndjson")).toMatchObject({ live: true, status: "success", events: lines.length });
    writeFileSync(join(dir, "runs", "r2.summary.json"), "{}\n");
    expect(await byFile("r2.events.ndjson")).toMatchObject({ live: false, status: "success", events: lines.length });
  });
});

describe("the event stream", () => {
  it("sends every event in order with id: = seq, then end", async () => {
    const session = await byFile("synthetic.ndjson");
    const stream = openSse(server.origin, `/api/sessions/${session.id}/events`, auth);
    expect((await stream.response).headers["content-type"]).toMatch(/^text\/event-stream/);
    await stream.waitFor((f) => f.event === "end");
    const expected = readAll([readFileSync(synthetic)], { redact: true }).events;
    expect(events(stream.frames)).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(stream.frames.filter((f) => f.event === "message").map((f) => Number(f.id))).toEqual(expected.map((e) => e.seq));
  });

  it("resumes after Last-Event-ID with no gap and no duplicate", async () => {
    const session = await byFile("synthetic.ndjson");
    const first = openSse(server.origin, `/api/sessions/${session.id}/events`, auth);
    const cut = await first.waitFor((f) => f.event === "message" && events([f])[0]?.seq === 4);
    first.close(); // the connection dies in the middle
    const second = openSse(server.origin, `/api/sessions/${session.id}/events`, { ...auth, "Last-Event-ID": cut.id ?? "" });
    await second.waitFor((f) => f.event === "end");
    const seqs = [...events(first.frames).filter((e) => e.seq <= 4), ...events(second.frames)].map((e) => e.seq);
    const all = readAll([readFileSync(synthetic)], { redact: true }).events.map((e) => e.seq);
    expect(seqs).toEqual(all);
  });

  it("redacts secrets before they leave the server", async () => {
    const session = await byFile("secret.ndjson");
    const stream = openSse(server.origin, `/api/sessions/${session.id}/events`, auth);
    await stream.waitFor((f) => f.event === "end");
    const text = stream.frames.map((f) => f.data).join("\n");
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED:github-token]");
  });

  it("follows a run log while its run goes on, and ends when the run's summary appears", async () => {
    const session = await byFile("r1.events.ndjson");
    const stream = openSse(server.origin, `/api/sessions/${session.id}/events`, auth);
    const lines = runLogLines();
    await stream.waitFor((f) => f.event === "message" && events([f])[0]?.seq === 2);
    appendFileSync(join(dir, "runs", "r1.events.ndjson"), `${lines.slice(3, 5).join("\n")}\n`);
    await stream.waitFor((f) => f.event === "message" && events([f])[0]?.seq === 4);
    stream.close(); // with no viewer, the list reads the log on its own, from where its last scan stopped
    expect(await byFile("r1.events.ndjson")).toMatchObject({ live: true, status: "running", events: 5 });
    const again = openSse(server.origin, `/api/sessions/${session.id}/events`, { ...auth, "Last-Event-ID": "4" });
    appendFileSync(join(dir, "runs", "r1.events.ndjson"), `${lines.slice(5).join("\n")}\n`);
    writeFileSync(join(dir, "runs", "r1.summary.json"), "{}\n");
    await again.waitFor((f) => f.event === "end");
    const shown = [...events(stream.frames).filter((e) => e.seq <= 4), ...events(again.frames)];
    expect(shown.map((e) => e.type)).toEqual(lines.map((l) => JSON.parse(l).type));
    expect(await byFile("r1.events.ndjson")).toMatchObject({ live: false, status: "success", events: lines.length });
  });

  it("sends a heartbeat while the stream is quiet, without an id (Last-Event-ID stays on the last event)", async () => {
    const quiet = await startServer({ catalog, assets: { script: "", css: "" }, heartbeatMs: 50 });
    const feed = new SessionFeed("pushed-quiet", { file: null, live: true });
    catalog.add(feed);
    feed.push({ v: 1, seq: 0, type: "heartbeat", idleMs: 15000 } as AgentEvent);
    const stream = openSse(quiet.origin, "/api/sessions/pushed-quiet/events", { Authorization: `Bearer ${quiet.token}` });
    const beat = await stream.waitFor((f) => f.event === "heartbeat");
    expect(beat.id).toBeUndefined();
    expect(JSON.parse(beat.data)).toMatchObject({ live: true });
    expect(events(stream.frames)).toMatchObject([{ type: "heartbeat", idleMs: 15000 }]); // the agent's own heartbeat is an event
    stream.close();
    await quiet.close();
  });

  it("drops a viewer that stops reading and tells it to resync; the others go on", async () => {
    const feed = new SessionFeed("pushed-stall", { file: null, live: true });
    catalog.add(feed);
    const stalled = openSse(server.origin, "/api/sessions/pushed-stall/events", auth);
    const healthy = openSse(server.origin, "/api/sessions/pushed-stall/events", auth);
    (await stalled.response).pause(); // a frozen tab: the socket fills up, then nothing is read
    await healthy.response;
    const text = "x".repeat(64 * 1024);
    let seq = 0;
    const pushSome = (): void => {
      for (let i = 0; i < 64; i++) feed.push({ v: 1, seq: ++seq, type: "text", text } as AgentEvent);
    };
    const viewersBefore = server.viewers();
    while (server.viewers() === viewersBefore) {
      pushSome();
      await healthy.waitFor((f) => f.event === "message" && Number(f.id) === seq);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    (await stalled.response).resume(); // the tab wakes up: it finds its stream ended (its EventSource would reconnect)
    await stalled.closed;
    expect(stalled.frames.some((f) => f.event === "end")).toBe(false);
    expect(server.viewers()).toBe(viewersBefore - 1);
    feed.end();
    await healthy.waitFor((f) => f.event === "end");
    expect(events(healthy.frames).map((e) => e.seq)).toEqual(Array.from({ length: seq }, (_, i) => i + 1));
  });
});
