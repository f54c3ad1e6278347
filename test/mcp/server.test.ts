/**
 * `agentstream mcp` through the official SDK's own client over stdio, spawning the built binary (one server for
 * the file): the tools and their schemas, each tool on the real session captures of ../shared/fixtures and on our
 * synthetic ones (the same answers as `sessions --json`, `summary --json`, `convert --to text` and `usage --json`),
 * paging that returns every event and line once, paths outside the roots and symbolic links leading out refused,
 * and no fake secret in any answer.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath } from "../helpers/fixtures.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const captures = hasShared ? ["claude-session", "codex-session", "gemini-session"].map((dir) => sharedPath("fixtures", dir)) : [];
if (!hasShared) console.warn("[agentstream tests] ../shared is absent: test/mcp/server.test.ts runs on our synthetic sessions only");

/** Fake secrets: the corpus's (tokens joined from their parts) when ../shared is there, and one of our own. */
function fakeSecrets(): { token: string; text: string }[] {
  const own = ["ghp", "_", "Q7w".repeat(12)].join("");
  const ours = [{ token: own, text: `export GITHUB_TOKEN=${own}` }];
  if (!hasShared) return ours;
  const corpus = JSON.parse(readFileSync(sharedPath("corpus/secrets/fake-tokens.json"), "utf8")) as {
    positives: { parts: string[]; context: string }[];
  };
  return ours.concat(corpus.positives.map((p) => ({ token: p.parts.join(""), text: p.context.replace("{TOKEN}", p.parts.join("")) })));
}
const secrets = fakeSecrets();

const SESSION_ID = "6d1f4c1e-0000-4e5a-9b1c-00000000mcp1";

/** A Claude Code session log: `exchanges` prompts, each a Bash call whose output holds the fake secrets, then an answer. */
function claudeSession(exchanges: number): string {
  const base = { isSidechain: false, userType: "external", cwd: "/work/mcp-demo", sessionId: SESSION_ID, version: "2.1.200" };
  const lines: object[] = [];
  let second = 0;
  const at = (): string => new Date(Date.parse("2026-03-04T10:00:00.000Z") + 1000 * ++second).toISOString();
  const usage = { input_tokens: 5, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 20 };
  for (let i = 0; i < exchanges; i++) {
    const assistant = (id: string, content: object[]): object => ({
      ...base,
      type: "assistant",
      requestId: `req_${i}_${id}`,
      message: { id: `msg_${i}_${id}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content, stop_reason: null, usage },
      uuid: `a-${i}-${id}`,
      timestamp: at(),
    });
    lines.push({
      ...base,
      type: "user",
      message: { role: "user", content: `Step ${i}: look at the config. ${secrets[0]?.text}` },
      uuid: `u-${i}`,
      timestamp: at(),
    });
    lines.push(assistant("t", [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: `cat config-${i}.env` } }]));
    const output = secrets.map((secret) => secret.text).join("\n");
    lines.push({
      ...base,
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: output, is_error: false }] },
      uuid: `r-${i}`,
      timestamp: at(),
    });
    lines.push(assistant("x", [{ type: "text", text: `Step ${i} done: the config sets the token.\nSecond line of step ${i}.` }]));
  }
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

// The synthetic store: one session with secrets, and a link to a session outside every root.
const store = tempDir("mcp-store", { until: "file" });
const outside = tempDir("mcp-outside", { until: "file" });
const sessionFile = join(store, "projects", "-work-mcp-demo", `${SESSION_ID}.jsonl`);
mkdirSync(join(store, "projects", "-work-mcp-demo"), { recursive: true });
writeFileSync(sessionFile, claudeSession(12));
const outsideFile = join(outside, "7e2a0000-0000-4000-8000-0000000out1.jsonl");
writeFileSync(outsideFile, claudeSession(1).replaceAll(SESSION_ID, "7e2a0000-0000-4000-8000-0000000out1").replaceAll('"msg_', '"msg_out_'));
const linkOut = join(store, "projects", "-work-mcp-demo", "link-out.jsonl");
symlinkSync(outsideFile, linkOut);
// One of our own Claude fixtures, named as a file.
const ownFixture = fixturePath("claude-session", "tool-result-bash-exit-code.ndjson");
const roots = [...captures, store, ownFixture];

/** The built CLI's stdout, as JSON or text. */
function cli(args: readonly string[]): string {
  return execFileSync(process.execPath, [bin, ...args], { encoding: "utf8", env: process.env, maxBuffer: 64 * 1024 * 1024 });
}

let client: Client;
let stderr = "";

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", ...roots],
    env: process.env as Record<string, string>,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  client = new Client({ name: "agentstream-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

function structured<T>(result: CallToolResult): T {
  expect(result.isError ?? false, textOf(result)).toBe(false);
  return result.structuredContent as T;
}

interface Hit {
  agent: string;
  sessionId: string | null;
  path: string;
  line: number | null;
  event: number;
  field: string;
  snippet: string;
}

interface SessionJson {
  sessionId: string | null;
  agent: string;
  files: string[];
}

describe("agentstream mcp over stdio (the SDK's client)", () => {
  it("offers five read-only tools, each described, with an input schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["list_sessions", "read_transcript", "search", "session_summary", "usage"]);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.annotations?.openWorldHint).toBe(false);
    }
    const transcript = tools.find((tool) => tool.name === "read_transcript");
    expect(Object.keys(transcript?.inputSchema.properties ?? {})).toEqual(["session", "format", "offset", "limit"]);
    expect(stderr).toContain("serving");
  });

  it("list_sessions answers as `sessions --json` over the same paths, newest first, links leading out left out", async () => {
    const got = structured<{ sessions: SessionJson[]; total: number }>(await call("list_sessions", { limit: 1000 }));
    const expected = JSON.parse(cli(["sessions", "--json", ...roots])) as SessionJson[];
    const outsider = expected.filter((s) => s.files.includes(linkOut));
    expect(outsider).toHaveLength(1); // `sessions` reads the link; the server does not
    expect(got.sessions).toEqual(expected.filter((s) => !s.files.includes(linkOut)).reverse());
    expect(got.total).toBe(got.sessions.length);
    const ids = got.sessions.map((s) => s.sessionId);
    expect(ids).toContain(SESSION_ID);
    expect(ids).toContain("5f0c2a9e-0000-4a2b-9c3d-00000000c1a0");
    if (hasShared) expect(new Set(got.sessions.map((s) => s.agent))).toEqual(new Set(["claude", "codex", "gemini"]));
    const text = textOf(await call("list_sessions", {}));
    expect(text).toContain(SESSION_ID);
  });

  it("list_sessions filters as `sessions` does, and says what is wrong with a filter", async () => {
    const codex = structured<{ sessions: SessionJson[] }>(await call("list_sessions", { agent: ["codex"] }));
    expect(codex.sessions.every((s) => s.agent === "codex")).toBe(true);
    const later = structured<{ sessions: SessionJson[] }>(await call("list_sessions", { since: "2099-01-01" }));
    expect(later.sessions).toEqual([]);
    const one = structured<{ sessions: SessionJson[]; total: number }>(await call("list_sessions", { limit: 1 }));
    expect(one.sessions).toHaveLength(1);
    const wrong = await call("list_sessions", { since: "2026-02-30" });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/since.*not a day/);
  });

  it("session_summary gives `summary --json` of each capture and of our fixtures, by id or by path", async () => {
    const { sessions } = structured<{ sessions: SessionJson[] }>(await call("list_sessions", { limit: 1000 }));
    const files = [...sessions.map((s) => s.files[0] as string).filter((file) => !file.includes("/subagents/")), ownFixture];
    for (const file of files) {
      const got = structured<{ path: string; summaries: unknown[] }>(await call("session_summary", { session: file }));
      expect(got.summaries, file).toEqual([JSON.parse(cli(["summary", "--json", file]))]);
    }
    const byId = structured<{ path: string; summaries: { sessionId: string }[] }>(await call("session_summary", { session: SESSION_ID }));
    expect(byId.path).toBe(sessionFile);
    expect(byId.summaries[0]?.sessionId).toBe(SESSION_ID);
  });

  it("read_transcript pages the text transcript (`convert --to text`, redacted): every line once", async () => {
    const { sessions } = structured<{ sessions: SessionJson[] }>(await call("list_sessions", { limit: 1000 }));
    const files = sessions.flatMap((session) => session.files).filter((file) => file !== sessionFile);
    for (const [path, pageSize] of [[sessionFile, 9] as const, [ownFixture, 9] as const, ...files.map((file) => [file, 400] as const)]) {
      const lines: string[] = [];
      let offset: number | null = 0;
      let total = -1;
      while (offset !== null) {
        const page: { lines: string[]; nextOffset: number | null; total: number; offset: number } = structured(
          await call("read_transcript", { session: path, offset, limit: pageSize }),
        );
        expect(page.offset).toBe(offset);
        expect(page.lines.length).toBeLessThanOrEqual(pageSize);
        total = page.total;
        lines.push(...page.lines);
        offset = page.nextOffset;
      }
      expect(lines, path).toHaveLength(total);
      expect(`${lines.join("\n")}\n`, path).toBe(cli(["convert", "--to", "text", path]));
    }
  });

  it("read_transcript pages the events: each event once, in order (its index is its seq), pages cut to their size", async () => {
    const largest = hasShared
      ? [[sharedPath("fixtures", "claude-session", "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"), 150] as const]
      : [];
    for (const [path, pageSize] of [[sessionFile, 7] as const, ...largest]) {
      const seqs: number[] = [];
      let total = -1;
      for (let offset: number | null = 0; offset !== null; ) {
        const page: { events: { seq: number }[]; nextOffset: number | null; total: number } = structured(
          await call("read_transcript", { session: path, format: "events", offset, limit: pageSize }),
        );
        expect(page.events.length).toBeGreaterThan(0);
        expect(page.events.length).toBeLessThanOrEqual(pageSize);
        seqs.push(...page.events.map((event) => event.seq));
        total = page.total;
        offset = page.nextOffset;
      }
      // Every event once, in order: an event's index is its seq.
      expect(seqs, path).toEqual([...Array(total).keys()]);
    }
    const all: { events: { seq: number }[]; total: number; nextOffset: number | null } = structured(
      await call("read_transcript", { session: sessionFile, format: "events", limit: 2000 }),
    );
    expect(all.nextOffset).toBeNull();
    expect(all.events.map((event) => event.seq)).toEqual([...Array(all.total).keys()]);
    const past = structured<{ events: unknown[]; nextOffset: null }>(
      await call("read_transcript", { session: sessionFile, format: "events", offset: all.total + 5 }),
    );
    expect(past.events).toEqual([]);
    expect(past.nextOffset).toBeNull();
  });

  it.skipIf(!hasShared)("a page stops before 60,000 characters, and the next one goes on from there", async () => {
    const path = sharedPath("fixtures", "claude-session", "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl");
    for (const format of ["text", "events"] as const) {
      const first = structured<{ lines?: string[]; events?: unknown[]; nextOffset: number; total: number }>(
        await call("read_transcript", { session: path, format, limit: 2000 }),
      );
      const items = first.lines ?? first.events ?? [];
      const size = items.reduce<number>((sum, item) => sum + (typeof item === "string" ? item.length + 1 : JSON.stringify(item).length), 0);
      expect(items.length).toBeLessThan(Math.min(2000, first.total));
      expect(size).toBeLessThanOrEqual(60_000);
      expect(first.nextOffset).toBe(items.length);
    }
  });

  it("usage answers as `usage --json` over the same paths", async () => {
    const got = structured<Record<string, unknown>>(await call("usage", { by: ["agent", "model"], breakdown: false }));
    const expected = JSON.parse(cli(["usage", "--json", "--by", "agent,model", ...roots.filter((root) => root !== store), sessionFile]));
    expect(got).toEqual(expected);
    expect(textOf(await call("usage", { by: ["agent"] }))).toMatch(/^agent\s+input/);
  });

  it("refuses every path outside the roots, symbolic links leading out, and folders, and answers on", async () => {
    const refused = [
      "/etc/passwd",
      join(store, "..", "..", "etc", "passwd"),
      "../../../../../../etc/hostname",
      outsideFile,
      linkOut,
      join(store, "projects"),
      "no-such-session-id",
    ];
    for (const session of refused) {
      for (const tool of ["session_summary", "read_transcript"]) {
        const result = await call(tool, { session });
        expect(result.isError, `${tool} ${session}`).toBe(true);
        expect(textOf(result)).toMatch(/outside the session stores|not a session file|no session has the id|no such session file/);
        expect(textOf(result)).toMatch(/list_sessions/);
      }
    }
    expect(textOf(await call("read_transcript", { session: linkOut }))).toContain("symbolic links leading out are refused");
    // Bad arguments are tool errors too (the SDK checks the schema), and the server still answers.
    expect((await call("read_transcript", { session: sessionFile, offset: -1 })).isError).toBe(true);
    expect(structured<{ total: number }>(await call("list_sessions", {})).total).toBeGreaterThan(0);
  });

  it("search finds words and facets in the captures and our sessions, and each hit opens at its event", async () => {
    const found = structured<{ hits: Hit[]; nextOffset: number | null }>(await call("search", { query: '"second line of step 7"' }));
    expect(found.hits).toHaveLength(1);
    const hit = found.hits[0] as Hit;
    expect(hit).toMatchObject({ agent: "claude", sessionId: SESSION_ID, path: sessionFile, field: "answer" });
    expect(hit.snippet).toContain("Second line of step 7");
    const page = structured<{ events: { seq: number; type: string; text?: string; source?: { line: number } }[] }>(
      await call("read_transcript", { session: hit.path, format: "events", offset: hit.event, limit: 1 }),
    );
    expect(page.events[0]?.seq).toBe(hit.event);
    expect(page.events[0]?.source?.line).toBe(hit.line);
    expect(page.events[0]?.text).toContain("Second line of step 7");
    // A word only the session behind the link leading out has: nothing from it.
    const steps = structured<{ hits: Hit[] }>(await call("search", { query: "config-0.env", limit: 200 }));
    expect(steps.hits.map((h) => h.path)).toEqual([sessionFile]);
    const bash = structured<{ hits: Hit[]; nextOffset: number | null }>(await call("search", { tool: "Bash", limit: 5 }));
    expect(bash.hits).toHaveLength(5);
    expect(bash.nextOffset).toBe(5);
    if (hasShared) {
      const codex = structured<{ hits: Hit[] }>(await call("search", { agent: ["codex"], query: "OK" }));
      expect(codex.hits.length).toBeGreaterThan(0);
      expect(codex.hits.every((h) => h.agent === "codex" && h.sessionId === "01a09103-3378-7c31-8e3b-5a07badfc8aa")).toBe(true);
    }
    const wrong = await call("search", { query: "x", since: "yesterday" });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/"since" takes a time ago/);
  });

  it("never answers with a secret: every tool on the session that holds them", async () => {
    const results: CallToolResult[] = [
      await call("list_sessions", { limit: 1000 }),
      await call("search", { query: "GITHUB_TOKEN", outputs: true, limit: 200 }),
      ...(await Promise.all(secrets.slice(0, 5).map((secret) => call("search", { query: secret.token, outputs: true })))),
      await call("session_summary", { session: SESSION_ID }),
      await call("usage", { by: ["session"], breakdown: true }),
    ];
    for (const format of ["text", "events"]) {
      for (let offset: number | null = 0; offset !== null; ) {
        const result = await call("read_transcript", { session: sessionFile, format, offset, limit: 25 });
        results.push(result);
        offset = (result.structuredContent as { nextOffset: number | null }).nextOffset;
      }
    }
    const said = JSON.stringify(results);
    expect(said).toContain("[REDACTED:");
    for (const secret of secrets) expect(said.includes(secret.token), secret.token.slice(0, 8)).toBe(false);
  });
});

describe("agentstream mcp as a process", () => {
  it("with no path, serves the agents' standard locations, and nothing else", async () => {
    const home = tempDir("mcp-home");
    const projects = join(home, ".claude", "projects", "-work-mcp-demo");
    mkdirSync(projects, { recursive: true });
    writeFileSync(join(projects, `${SESSION_ID}.jsonl`), claudeSession(2));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, XDG_CACHE_HOME: join(home, ".cache") };
    delete env.CLAUDE_CONFIG_DIR;
    delete env.CODEX_HOME;
    const own = new Client({ name: "agentstream-test-home", version: "1.0.0" });
    await own.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "mcp"], env, stderr: "ignore" }));
    try {
      const listed = (await own.callTool({ name: "list_sessions", arguments: {} })) as CallToolResult;
      const { sessions } = structured<{ sessions: SessionJson[] }>(listed);
      expect(sessions.map((session) => session.sessionId)).toEqual([SESSION_ID]);
      const read = (await own.callTool({ name: "session_summary", arguments: { session: SESSION_ID } })) as CallToolResult;
      expect(structured<{ path: string }>(read).path).toBe(join(projects, `${SESSION_ID}.jsonl`));
      // The store the other server reads is not one of this one's.
      const refused = (await own.callTool({ name: "read_transcript", arguments: { session: sessionFile } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain(join(home, ".claude", "projects"));
    } finally {
      await own.close();
    }
  });

  it("writes only the protocol on stdout, and its diagnostics on stderr", async () => {
    const child = spawn(process.execPath, [bin, "mcp", store], { stdio: ["pipe", "pipe", "pipe"], env: process.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read_transcript", arguments: { session: "/etc/passwd" } } });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_sessions", arguments: {} } });
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (Buffer.concat(out).toString("utf8").includes('"id":3')) resolve();
      };
      child.stdout.on("data", check);
    });
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const lines = Buffer.concat(out)
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "");
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: { isError?: boolean } });
    expect(messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((message) => message.id)).toEqual([1, 2, 3]);
    expect(messages[1]?.result?.isError).toBe(true);
    expect(Buffer.concat(err).toString("utf8")).toContain("agentstream mcp");
  });

  it("will not start on a path that does not exist (exit 3, said on stderr, nothing on stdout)", () => {
    const missing = join(store, "no-such-folder");
    let failure: { status: number; stdout: string; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [bin, "mcp", missing], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      failure = error as { status: number; stdout: string; stderr: string };
    }
    expect(failure?.status).toBe(3);
    expect(failure?.stdout).toBe("");
    expect(failure?.stderr).toContain("no such file or folder");
  });
});
