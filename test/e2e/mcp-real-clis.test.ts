/**
 * `agentstream mcp` as the real agent CLIs use it, offline. Claude Code starts our server from `--mcp-config`, the
 * scripted model (test/helpers/model-server/) calls its `search` and `list_sessions` tools in its first turns, and
 * the next request Claude Code sends the model must carry what the tools answered (the session id, the hit's
 * snippet) in its tool_result. Codex starts it from its `mcp_servers` configuration; Codex 0.169 defers MCP tools
 * behind the Responses API's tool search, which the scripted server does not speak, so the check there is that the
 * server started and introduced itself (its instructions reach the model). The CLIs come from
 * scripts/install-agent-clis.sh; without them the tests skip.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentClisDir, canIsolateNetwork, realClis, runRealClaude, runRealCodex } from "../helpers/model-server/run-real-cli.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

if (realClis.claude === undefined || realClis.codex === undefined) {
  console.warn(
    `[agentstream tests] Claude Code or Codex not found in ${agentClisDir}: their tests in test/e2e/mcp-real-clis.test.ts are skipped`,
  );
}

const SESSION_ID = "3b7e9d20-0000-4c1d-8e2f-0000000c1a0d";

/** A small Claude Code session log in which the assistant wrote `formatDue`. */
function sessionLog(): string {
  const base = { isSidechain: false, userType: "external", cwd: "/work/due-dates", sessionId: SESSION_ID, version: "2.1.200" };
  const usage = { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 12 };
  const lines = [
    {
      ...base,
      type: "user",
      message: { role: "user", content: "Add a due-date formatter." },
      uuid: "u-1",
      timestamp: "2026-03-01T09:00:00.000Z",
    },
    {
      ...base,
      type: "assistant",
      requestId: "req_1",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "I added formatDue(date) to src/dates.ts." }],
        stop_reason: "end_turn",
        usage,
      },
      uuid: "a-1",
      timestamp: "2026-03-01T09:00:05.000Z",
    },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** The text of the tool_result blocks in a Messages API request body. */
function toolResults(body: unknown): string[] {
  const messages = (body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  const out: string[] = [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as { type?: string; content?: unknown }[]) {
      if (block.type !== "tool_result") continue;
      out.push(typeof block.content === "string" ? block.content : JSON.stringify(block.content));
    }
  }
  return out;
}

/** A store holding the session log, and the command that serves it. */
function servedStore(): { command: string; args: string[] } {
  const dir = tempDir("mcp-store", { until: "file" });
  const store = join(dir, "store", "-work-due-dates");
  mkdirSync(store, { recursive: true });
  writeFileSync(join(store, `${SESSION_ID}.jsonl`), sessionLog());
  return { command: process.execPath, args: [join(repoRoot, "dist/cli/bin.js"), "mcp", join(dir, "store")] };
}

describe.skipIf(realClis.claude === undefined)("agentstream mcp in the real Claude Code, offline", () => {
  it("the scripted model searches the sessions and lists them through our server, and gets the answers", async () => {
    const config = join(tempDir("mcp-claude", { until: "file" }), "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { agentstream: servedStore() } }));

    const run = await runRealClaude(
      [
        { blocks: [{ type: "call", name: "mcp__agentstream__search", input: { query: "formatDue" } }] },
        { blocks: [{ type: "call", name: "mcp__agentstream__list_sessions", input: { agent: ["claude"] } }] },
        { blocks: [{ type: "text", text: "The session that added formatDue is 3b7e9d20." }] },
      ],
      "Which session added formatDue?",
      {
        extraArgs: [
          "--mcp-config",
          config,
          "--strict-mcp-config",
          "--allowedTools",
          "mcp__agentstream__search",
          "mcp__agentstream__list_sessions",
        ],
      },
    );
    const context = `claude exited ${run.exitCode}${run.timedOut ? " (timed out)" : ""}${run.isolated ? "" : " (no network isolation)"}; stderr: ${run.stderr.slice(0, 800)}`;
    expect(run.timedOut, context).toBe(false);
    expect(run.exitCode, context).toBe(0);
    const turns = run.server.requests.filter((request) => request.turn !== undefined);
    expect(turns.map((request) => request.turn)).toEqual([0, 1, 2]);
    // Claude Code offered our tools to the model.
    const offered = ((turns[0]?.body as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp__agentstream__search", "mcp__agentstream__list_sessions"]));
    // The search's answer went back to the model: the hit's session and snippet.
    const afterSearch = toolResults(turns[1]?.body);
    expect(afterSearch).toHaveLength(1);
    expect(afterSearch[0]).toContain(SESSION_ID);
    expect(afterSearch[0]).toContain("formatDue(date)");
    // Claude Code 2.1 hands the model a tool's structured JSON when it has one (else its text): the hit's place either way.
    expect(afterSearch[0]).toMatch(new RegExp(`${SESSION_ID}\\.jsonl(:2 |","line":2,)`));
    // Then the list's: the same session, with its project.
    const afterList = toolResults(turns[2]?.body);
    expect(afterList.at(-1)).toContain(SESSION_ID);
    expect(afterList.at(-1)).toContain("/work/due-dates");
    expect(run.stdout.toString("utf8")).toContain("The session that added formatDue is 3b7e9d20.");
    if (!canIsolateNetwork()) console.warn("[agentstream tests] mcp-real-claude ran without network isolation (127.0.0.1 only)");
  });
});

describe.skipIf(realClis.codex === undefined)("agentstream mcp in the real Codex, offline", () => {
  it("starts our server from its mcp_servers configuration and gives the model its instructions", async () => {
    const { command, args } = servedStore();
    // The `[mcp_servers.agentstream]` table of ~/.codex/config.toml, given on the command line.
    const table = `mcp_servers.agentstream={command=${JSON.stringify(command)},args=[${args.map((arg) => JSON.stringify(arg)).join(",")}]}`;
    const run = await runRealCodex([{ blocks: [{ type: "text", text: "Noted." }] }], "Which session added formatDue?", {
      extraArgs: ["-c", table],
    });
    const context = `codex exited ${run.exitCode}${run.timedOut ? " (timed out)" : ""}; stderr: ${run.stderr.slice(0, 800)}`;
    expect(run.timedOut, context).toBe(false);
    expect(run.exitCode, context).toBe(0);
    const first = JSON.stringify(run.server.requests.find((request) => request.turn === 0)?.body);
    // Codex lists the server's tools as a deferred namespace described by the server's `initialize` instructions.
    expect(first).toContain("mcp__agentstream: Read-only access to the coding-agent sessions saved on this machine");
  });
});
