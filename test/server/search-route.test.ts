/**
 * `GET /api/search` of `agentstream serve` over HTTP from Node: the same guard as every route, hits told by the
 * served sessions' ids and their events' seqs (the SSE `id:` the page scrolls to), bad queries answered 400 with a
 * JSON error, secrets never in an answer, nothing outside the served paths found.
 */
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createCatalog } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import { createSearchService } from "../../src/server/search-service.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import type { LiveSearchAnswer } from "../../src/views/web/live-wire.ts";
import { httpGet, openSse } from "../helpers/http.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const claudeCapture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
const secret = `ghp_${"a1B2c3D4e5".repeat(4)}`;

let dir: string;
let server: SessionServer;
let auth: Record<string, string>;

/** A Claude stream-json session: an init, then one prompt and one answer. */
function claudeSession(id: string, prompt: string, answer: string): string {
  return [
    { type: "system", subtype: "init", session_id: id, cwd: "/work/app", model: "claude-test", tools: [] },
    { type: "user", session_id: id, message: { role: "user", content: prompt } },
    { type: "assistant", session_id: id, message: { id: `${id}-m1`, role: "assistant", content: [{ type: "text", text: answer }] } },
  ]
    .map((record) => JSON.stringify(record))
    .join("\n")
    .concat("\n");
}

beforeAll(async () => {
  dir = tempDir("serve-search");
  const outside = tempDir("serve-search-outside");
  writeFileSync(join(dir, "secret.jsonl"), claudeSession("s1", "where is the flaky marker", `the token is ${secret} near zebraquartz`));
  writeFileSync(join(outside, "other.jsonl"), claudeSession("s2", "zebraquartz outside", "zebraquartz outside"));
  if (hasShared) copyFileSync(claudeCapture, join(dir, "capture.jsonl"));
  const catalog = await createCatalog({ paths: [dir], read: { dialect: "auto", redact: true }, rescanMs: 0 });
  const search = createSearchService({ env: { HOME: dir }, cacheDir: join(dir, ".cache") });
  server = await startServer({ catalog, assets: { script: "", css: "" }, search });
  auth = { Authorization: `Bearer ${server.token}` };
});

afterAll(async () => {
  await server.close();
});

const get = (path: string, headers = auth) => httpGet(server.origin, path, headers);
const search = async (query: string): Promise<LiveSearchAnswer> => {
  const reply = await get(`/api/search?${query}`);
  expect(reply.status, reply.body).toBe(200);
  expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
  return JSON.parse(reply.body) as LiveSearchAnswer;
};

describe("GET /api/search: who is let in", () => {
  it("needs the token, our Host and our Origin, as every route does", async () => {
    expect((await get("/api/search?q=zebraquartz", {})).status).toBe(401);
    expect((await get("/api/search?q=zebraquartz", { Authorization: "Bearer wrong" })).status).toBe(401);
    expect((await get(`/api/search?q=zebraquartz&token=${server.token}`, {})).status).toBe(401);
    expect((await get("/api/search?q=zebraquartz", { ...auth, Host: "evil.example:80" })).status).toBe(403);
    expect((await get("/api/search?q=zebraquartz", { ...auth, Origin: "http://evil.example" })).status).toBe(403);
    expect((await get("/api/search?q=zebraquartz", { ...auth, "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    const refused = await get("/api/search?q=zebraquartz", { ...auth, Host: "evil.example:80" });
    expect(refused.body).toBe("");
  });
});

describe("GET /api/search: hits", () => {
  it("finds a word in the served sessions only, told by the session's id and the event's seq in its stream", async () => {
    const answer = await search("q=zebraquartz");
    expect(answer.hits).toHaveLength(1);
    const [hit] = answer.hits;
    const sessions = JSON.parse((await get("/api/sessions")).body) as SessionInfo[];
    const served = sessions.find((s) => s.file === join(dir, "secret.jsonl"));
    expect(hit).toMatchObject({ session: served?.id, agent: "claude", field: "answer", project: "/work/app", tool: null });
    expect(hit?.snippet.slice(...(hit.ranges[0] ?? [0, 0]))).toBe("zebraquartz");
    // The seq the page scrolls to is the event's seq in the session's own stream.
    const stream = openSse(server.origin, `/api/sessions/${served?.id}/events`, auth);
    try {
      const frame = await stream.waitFor((f) => f.event === "message" && (JSON.parse(f.data) as AgentEvent).seq === hit?.event);
      expect(frame.data).toContain("zebraquartz");
      expect((JSON.parse(frame.data) as AgentEvent).type).toBe("message.completed");
    } finally {
      stream.close();
    }
  });

  it.skipIf(!hasShared)("finds a tool by name in a real Claude Code capture, as a facet", async () => {
    const answer = await search("tool=Write");
    expect(answer.hits.length).toBeGreaterThan(0);
    for (const hit of answer.hits) expect(hit).toMatchObject({ agent: "claude", tool: "Write" });
  });

  it("never returns a secret, and never matches inside one", async () => {
    const answer = await search("q=token");
    expect(answer.hits.length).toBeGreaterThan(0);
    expect(JSON.stringify(answer)).not.toContain(secret);
    expect(JSON.stringify(answer)).toContain("[REDACTED");
    expect((await search("q=a1B2c3D4e5")).hits).toEqual([]);
    expect((await get("/api/search?q=ghp_a1B2&regex=1")).body).not.toContain(secret);
  });

  it("caps the hits: limit above 200 is refused, and `more` says there are more", async () => {
    expect((await get("/api/search?q=zebraquartz&limit=201")).status).toBe(400);
    const first = await search("q=the&limit=1");
    expect(first.hits).toHaveLength(1);
    expect(first.more).toBe(true);
  });

  it("finds what was appended to a served log after the last search (the index is updated first)", async () => {
    expect((await search("q=quokkalantern")).hits).toEqual([]);
    writeFileSync(join(dir, "later.jsonl"), claudeSession("s3", "quokkalantern please", "done"));
    const answer = await search("q=quokkalantern");
    expect(answer.hits.map((hit) => hit.field)).toEqual(["prompt"]);
  });
});

describe("GET /api/search: bad queries", () => {
  it.each([
    ["/api/search", /give q/],
    ["/api/search?q=(unclosed&regex=1", /./],
    ["/api/search?q=x&limit=0", /limit/],
    ["/api/search?q=x&since=yesterday", /since/],
    ["/api/search?q=x&status=maybe", /status/],
  ])("%s: 400 with a JSON error", async (path, message) => {
    const reply = await get(path);
    expect(reply.status).toBe(400);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect((JSON.parse(reply.body) as { error: string }).error).toMatch(message);
  });

  it("a server without search answers 404", async () => {
    const catalog = await createCatalog({ paths: [dir], read: { dialect: "auto", redact: true } });
    const bare = await startServer({ catalog, assets: { script: "", css: "" } });
    try {
      const reply = await httpGet(bare.origin, "/api/search?q=x", { Authorization: `Bearer ${bare.token}` });
      expect(reply.status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
