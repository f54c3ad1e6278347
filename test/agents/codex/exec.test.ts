import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codex } from "../../../src/agents/codex/exec.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const capture = (name: string): string => sharedPath("fixtures", "codex", name);
/** The decoder's own output (no repair stage). */
const raw = (text: string) => readAll([text], { dialect: "codex", repair: false });
const lines = (...records: unknown[]): string => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
const THREAD = { type: "thread.started", thread_id: "01a0cccc-0000-7000-8000-000000000001" };
/** Drops the envelope so event shapes compare cleanly. */
const shape = (e: AgentEvent): Record<string, unknown> => {
  const { v, seq, source, sessionId, time, ...rest } = e as AgentEvent & Record<string, unknown>;
  return rest;
};

describe("codex detection", () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ["thread.started with thread_id", THREAD, true],
    [
      "thread.started with sequence (codex-thread design)",
      { type: "thread.started", thread_id: "t", sequence: 0, timestamp: "2026-01-01T00:00:00Z", task: "x" },
      false,
    ],
    ["turn.started", { type: "turn.started" }, true],
    ["turn.completed", { type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } }, true],
    ["item.completed (current)", { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "hi" } }, true],
    [
      "item.completed (0.40–0.43 item_type)",
      { type: "item.completed", item: { id: "itm_0", item_type: "assistant_message", text: "hi" } },
      true,
    ],
    ["item.completed without an item type", { type: "item.completed", item: { id: "x" } }, false],
    ["session.created (0.40–0.42)", { type: "session.created", session_id: "s" }, true],
    ["realtime API session.created", { type: "session.created", event_id: "e", session: { id: "s" } }, false],
    ["legacy config summary", { model: "gpt-5", provider: "openai", approval: "never", sandbox: "read-only", workdir: "/w" }, true],
    ["legacy prompt line", { prompt: "hello" }, true],
    ["legacy {id,msg}", { id: "1", msg: { type: "task_started" } }, true],
    ["top-level error alone (shared with Cline)", { type: "error", message: "boom" }, false],
    ["rollout session_meta", { timestamp: "t", type: "session_meta", payload: { id: "x" } }, false],
    ["rollout event_msg", { timestamp: "t", type: "event_msg", payload: { type: "agent_message", message: "x" } }, false],
    ["gemini init", { type: "init", timestamp: "t", session_id: "s", model: "gemini-2.5-pro" }, false],
    ["claude system/init", { type: "system", subtype: "init", session_id: "s" }, false],
    ["app-server JSON-RPC", { jsonrpc: "2.0", method: "thread/started", params: {} }, false],
  ])("%s → %s", (_name, value, expected) => {
    expect(codex.detect(jsonRecord(value))).toBe(expected);
  });

  it("never claims a text line (the pipeline keeps banners as text events)", () => {
    expect(codex.detect({ kind: "text", text: "Reading additional input from stdin...", line: 1, offset: 0, length: 38 })).toBe(false);
  });

  it.skipIf(!hasShared)("claims no other agent's first records in ../shared/fixtures", () => {
    const root = sharedPath("fixtures");
    for (const folder of readdirSync(root)) {
      if (folder === "codex" || folder === "protocols" || !statSync(join(root, folder)).isDirectory()) continue;
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
      for (const file of walk(join(root, folder))) {
        for (const line of readFileSync(file, "utf8").split("\n").slice(0, 20)) {
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            continue;
          }
          if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
          expect(codex.detect(jsonRecord(value as Record<string, unknown>)), `${folder}: ${line.slice(0, 80)}`).toBe(false);
        }
      }
    }
  });

  it("is what auto-detection picks for a current, an experimental and a legacy stream", () => {
    expect(detectDialect(jsonRecord(THREAD))?.name).toBe("codex");
    expect(detectDialect(jsonRecord({ type: "session.created", session_id: "s" }))?.name).toBe("codex");
    expect(detectDialect(jsonRecord({ id: "", msg: { type: "session_configured", session_id: "s", model: "m" } }))?.name).toBe("codex");
  });
});

describe("codex record shapes (current format)", () => {
  const after = (...records: unknown[]) =>
    raw(lines(THREAD, { type: "turn.started" }, ...records))
      .events.slice(2)
      .map(shape);
  it.each<[string, unknown[], Record<string, unknown>[]]>([
    [
      "agent_message item.completed → a whole message with the item id",
      [{ type: "item.completed", item: { id: "item_0", type: "agent_message", text: "4" } }],
      [
        { type: "message.started", messageId: "item_0", role: "assistant", kind: "text" },
        { type: "message.completed", messageId: "item_0", role: "assistant", kind: "text", text: "4" },
      ],
    ],
    [
      "reasoning item → kind reasoning",
      [{ type: "item.completed", item: { id: "item_0", type: "reasoning", text: "**Thinking**" } }],
      [
        { type: "message.started", messageId: "item_0", role: "assistant", kind: "reasoning" },
        { type: "message.completed", messageId: "item_0", role: "assistant", kind: "reasoning", text: "**Thinking**" },
      ],
    ],
    [
      "agent_message snapshots in item.updated → deltas of the new part, same id",
      [
        { type: "item.started", item: { id: "item_0", type: "agent_message", text: "" } },
        { type: "item.updated", item: { id: "item_0", type: "agent_message", text: "Hel" } },
        { type: "item.updated", item: { id: "item_0", type: "agent_message", text: "Hello" } },
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Hello!" } },
      ],
      [
        { type: "message.started", messageId: "item_0", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "item_0", text: "Hel", position: 0 },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "item_0", text: "lo", position: 3 },
        { type: "message.completed", messageId: "item_0", role: "assistant", kind: "text", text: "Hello!" },
      ],
    ],
    [
      "command_execution completed without a started → started then completed",
      [
        {
          type: "item.completed",
          item: {
            id: "item_1",
            type: "command_execution",
            command: "bash -lc ls",
            aggregated_output: "a\n",
            exit_code: 0,
            status: "completed",
          },
        },
      ],
      [
        { type: "tool.started", toolCallId: "item_1", name: "shell", kind: "command", input: { command: "bash -lc ls" } },
        { type: "tool.completed", toolCallId: "item_1", name: "shell", output: "a\n", exitCode: 0, isError: false },
      ],
    ],
    [
      "command_execution failed with exit 2 → isError and exitCode",
      [
        {
          type: "item.completed",
          item: { id: "item_1", type: "command_execution", command: "x", aggregated_output: "no\n", exit_code: 2, status: "failed" },
        },
      ],
      [
        { type: "tool.started", toolCallId: "item_1", name: "shell", kind: "command", input: { command: "x" } },
        { type: "tool.completed", toolCallId: "item_1", name: "shell", output: "no\n", exitCode: 2, isError: true },
      ],
    ],
    [
      "file_change with update/rename/diff → tool call plus file.changed",
      [
        {
          type: "item.completed",
          item: {
            id: "item_2",
            type: "file_change",
            changes: [
              { path: "a.ts", kind: "update", diff: "@@\n-a\n+b" },
              { path: "b.ts", kind: { type: "update", move_path: "c.ts" } },
              { path: "d.ts", kind: "delete" },
            ],
            status: "failed",
          },
        },
      ],
      [
        {
          type: "tool.started",
          toolCallId: "item_2",
          name: "file_change",
          kind: "file_edit",
          input: {
            changes: [
              { path: "a.ts", kind: "update", diff: "@@\n-a\n+b" },
              { path: "b.ts", kind: { type: "update", move_path: "c.ts" } },
              { path: "d.ts", kind: "delete" },
            ],
          },
        },
        { type: "tool.completed", toolCallId: "item_2", name: "file_change", isError: true },
        {
          type: "file.changed",
          changes: [
            { path: "a.ts", kind: "update", diff: "@@\n-a\n+b" },
            { path: "b.ts", kind: "rename", newPath: "c.ts" },
            { path: "d.ts", kind: "delete" },
          ],
          toolCallId: "item_2",
          status: "error",
        },
      ],
    ],
    [
      "mcp_tool_call with structured_content → kind mcp, server, result",
      [
        {
          type: "item.started",
          item: {
            id: "item_3",
            type: "mcp_tool_call",
            server: "docs",
            tool: "search",
            arguments: { q: "x" },
            result: null,
            error: null,
            status: "in_progress",
          },
        },
        {
          type: "item.completed",
          item: {
            id: "item_3",
            type: "mcp_tool_call",
            server: "docs",
            tool: "search",
            arguments: { q: "x" },
            result: { content: [{ type: "text", text: "2 hits" }], structured_content: { hits: 2 } },
            error: null,
            status: "completed",
          },
        },
      ],
      [
        { type: "tool.started", toolCallId: "item_3", name: "search", kind: "mcp", input: { q: "x" }, server: "docs" },
        { type: "tool.completed", toolCallId: "item_3", name: "search", output: "2 hits", result: { hits: 2 }, isError: false },
      ],
    ],
    [
      "error item → a warning notice, not an error",
      [{ type: "item.completed", item: { id: "item_0", type: "error", message: "Model metadata not found" } }],
      [{ type: "notice", kind: "warning", level: "warning", text: "Model metadata not found", details: { itemId: "item_0" } }],
    ],
    [
      "top-level error → stream error (non-fatal)",
      [{ type: "error", message: "upstream said no" }],
      [{ type: "error", scope: "stream", message: "upstream said no" }],
    ],
    [
      "top-level Reconnecting error → retry",
      [{ type: "error", message: "Reconnecting... 3/5 (stream disconnected)" }],
      [{ type: "retry", attempt: 3, maxAttempts: 5, error: "Reconnecting... 3/5 (stream disconnected)" }],
    ],
    [
      "turn.completed → cumulative usage then turn.completed without usage",
      [
        {
          type: "turn.completed",
          usage: { input_tokens: 100, cached_input_tokens: 40, cache_write_input_tokens: 3, output_tokens: 9, reasoning_output_tokens: 4 },
        },
      ],
      [
        {
          type: "usage",
          usage: { inputTokens: 100, outputTokens: 9, cacheReadTokens: 40, cacheWriteTokens: 3, reasoningTokens: 4 },
          scope: "cumulative",
        },
        { type: "turn.completed", turnId: "turn-1", status: "success" },
        {
          type: "session.completed",
          status: "success",
          usage: { inputTokens: 100, outputTokens: 9, cacheReadTokens: 40, cacheWriteTokens: 3, reasoningTokens: 4 },
        },
      ],
    ],
  ])("%s", (_name, records, expected) => {
    const events = after(...records);
    expect(events.slice(0, expected.length)).toEqual(expected);
  });

  it("thread.started → session.started with agent codex and the thread id", () => {
    const { events } = raw(lines(THREAD));
    expect(events.map(shape)).toEqual([{ type: "session.started", agent: "codex" }]);
    expect(events[0]?.sessionId).toBe(THREAD.thread_id);
  });

  it("a stream with no turn record gets no session.completed (summary: incomplete)", () => {
    const { events, summary } = raw(lines(THREAD, { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "x" } }));
    expect(ofType(events, "session.completed")).toEqual([]);
    expect(summary.status).toBe("incomplete");
  });
});

describe("codex synthetic fixtures", () => {
  it("web-search-duplicate-id-keys: the last id wins, started/completed pair, framing warns", () => {
    const { events, issues, summary } = readFile(fixturePath("codex", "web-search-duplicate-id-keys.ndjson"));
    expect(summary.dialect).toBe("codex");
    expect(summary.toolCalls).toEqual([
      { id: "ws_0001", name: "web_search", status: "success" },
      { id: "ws_0002", name: "web_search", status: "success" },
    ]);
    expect(ofType(events, "tool.started").map((e) => e.kind)).toEqual(["web_search", "web_search"]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({
      output: "ndjson spec",
      result: { type: "search", query: "ndjson spec", queries: ["ndjson spec", "ndjson rfc"] },
    });
    expect(issues.filter((i) => i.code === "duplicate-key").map((i) => i.line)).toEqual([3, 4, 5, 6]);
    expect(ofType(events, "unknown")).toEqual([]);
    expect(summary.status).toBe("success");
  });

  it("todo-list-plan-updates: each todo_list snapshot is a plan.updated", () => {
    const { events } = readFile(fixturePath("codex", "todo-list-plan-updates.ndjson"));
    expect(ofType(events, "plan.updated").map((e) => e.items.map((i) => i.status))).toEqual([
      ["pending", "pending"],
      ["completed", "pending"],
      ["completed", "completed"],
    ]);
    expect(ofType(events, "plan.updated")[0]).toMatchObject({
      planId: "item_0",
      items: [{ text: "read the code" }, { text: "write the fix" }],
    });
    expect(ofType(events, "tool.started")).toEqual([]);
  });

  it("command-updated-output-then-declined: output snapshots become progress; failed and declined are errors", () => {
    const { events, summary } = readFile(fixturePath("codex", "command-updated-output-then-declined.ndjson"));
    expect(ofType(events, "tool.progress").map((e) => e.output)).toEqual(["running 3 tests\n", "ok 1\n"]);
    expect(summary.toolCalls).toEqual([
      { id: "item_0", name: "shell", status: "error" },
      { id: "item_1", name: "shell", status: "error" },
    ]);
    expect(ofType(events, "tool.completed").map((e) => e.exitCode)).toEqual([1, undefined]);
    expect(summary.status).toBe("success");
  });

  it("reconnecting-then-turn-failed: retries, an error, then status error with turn.failed's message", () => {
    const { events, summary } = readFile(fixturePath("codex", "reconnecting-then-turn-failed.ndjson"));
    expect(ofType(events, "retry").map((e) => [e.attempt, e.maxAttempts])).toEqual([
      [1, 5],
      [2, 5],
    ]);
    expect(ofType(events, "error").map((e) => e.message)).toEqual(["unexpected status 401 Unauthorized"]);
    expect(ofType(events, "turn.completed")[0]).toMatchObject({ status: "error", error: "unexpected status 401 Unauthorized" });
    expect(summary.status).toBe("error");
    expect(summary.error).toBe("unexpected status 401 Unauthorized");
    expect(summary.finalText).toBeNull();
  });

  it("cut-mid-turn: no session.completed, the open command is closed as an error, status incomplete", () => {
    const { events, summary } = readFile(fixturePath("codex", "cut-mid-turn.ndjson"));
    expect(ofType(events, "session.completed")).toEqual([]);
    expect(summary.status).toBe("incomplete");
    expect(summary.toolCalls).toEqual([{ id: "item_1", name: "shell", status: "error" }]);
    expect(summary.finalText).toBe("Running the build.");
    expect(checkSequence(events).filter((i) => /never completed/.test(i.message))).toEqual([]);
  });

  it("multi-turn-cumulative-usage: turn usage is the thread total, so the summary is the last one, not the sum", () => {
    const { events, summary } = readFile(fixturePath("codex", "multi-turn-cumulative-usage.ndjson"));
    expect(ofType(events, "usage").map((e) => e.scope)).toEqual(["cumulative", "cumulative"]);
    expect(ofType(events, "turn.completed").every((e) => e.usage === undefined)).toBe(true);
    expect(summary.usage).toEqual({ inputTokens: 2300, outputTokens: 90, cacheReadTokens: 1300, cacheWriteTokens: 0, reasoningTokens: 25 });
    expect(summary.turns).toBe(2);
    expect(summary.finalText).toBe("second answer");
    expect(summary.costUsd).toBeNull();
    expect(summary.durationMs).toBeNull();
  });

  it("experimental-json-0.42: session.created, item_type, assistant_message; no turn records so no session end", () => {
    const { events, summary } = readFile(fixturePath("codex", "experimental-json-0.42.ndjson"));
    expect(summary.dialect).toBe("codex");
    expect(summary.sessionId).toBe("0199894d-0000-7000-8000-000000000007");
    expect(summary.finalText).toBe("Updated a.txt and added c.txt.");
    expect(summary.toolCalls).toEqual([
      { id: "itm_1", name: "shell", status: "success" },
      { id: "itm_2", name: "file_change", status: "success" },
    ]);
    expect(ofType(events, "file.changed")[0]?.changes).toEqual([
      { path: "/work/a.txt", kind: "update" },
      { path: "/work/c.txt", kind: "add" },
    ]);
    expect(ofType(events, "message.completed").map((e) => e.kind)).toEqual(["reasoning", "text"]);
    expect(summary.status).toBe("incomplete");
  });

  it("collab-plan-request-input-warning: plan deltas, a subagent tool call, a question, a warning before the turn", () => {
    const { events, summary } = readFile(fixturePath("codex", "collab-plan-request-input-warning.ndjson"));
    const kinds = events.map((e) => e.type);
    expect(kinds.indexOf("notice")).toBeLessThan(kinds.indexOf("turn.started"));
    expect(ofType(events, "notice").map((e) => [e.kind, e.level])).toEqual([
      ["warning", "warning"],
      ["request_user_input", "warning"],
    ]);
    const plan = ofType(events, "message.completed").find((e) => e.channel === "plan");
    expect(plan).toMatchObject({ messageId: "item_1", text: "1. Read the spec\n2. Write the parser\n" });
    expect(ofType(events, "tool.started")[0]).toMatchObject({ name: "spawn_agent", kind: "subagent" });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ output: "The spec defines one JSON text per line.", isError: false });
    expect(summary.finalText).toBe("Plan ready; waiting for your answer on tests.");
  });

  it("unknown-item-type: one unknown event with the record, an issue, and the rest decoded", () => {
    const { events, issues, summary } = readFile(fixturePath("codex", "unknown-item-type.ndjson"));
    const unknown = ofType(events, "unknown");
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.raw).toEqual({ type: "item.completed", item: { id: "item_0", type: "hologram", payload: { x: 1 } } });
    expect(issues.filter((i) => i.code === "unknown-record")).toHaveLength(1);
    expect(summary.finalText).toBe("done");
    expect(summary.records.unknown).toBe(1);
  });

  it("stdin-banner-before-json: the banner is a preamble text event; the stream is detected as codex", () => {
    const { events, summary } = readFile(fixturePath("codex", "stdin-banner-before-json.txt"));
    expect(summary.dialect).toBe("codex");
    expect(events[0]).toMatchObject({ type: "text", text: "Reading additional input from stdin...", position: "preamble" });
    expect(summary.status).toBe("success");
  });

  it("legacy-config-prompt-deltas-sections-exec: config → session.started, prompt → user message, deltas share ids with full events", () => {
    const { events, summary } = raw(readFileSync(fixturePath("codex", "legacy-config-prompt-deltas-sections-exec.ndjson"), "utf8"));
    expect(ofType(events, "session.started")[0]).toMatchObject({
      agent: "codex",
      model: "gpt-5-codex",
      cwd: "/home/dev/project",
      permissionMode: "workspace-write",
      details: { provider: "openai", approval: "never", "reasoning effort": "medium", "reasoning summaries": "auto" },
    });
    expect(ofType(events, "message.completed").map((e) => [e.messageId, e.role, e.kind, e.text])).toEqual([
      ["user-1", "user", "text", "List the files and say what café.txt holds"],
      ["reasoning-1", "assistant", "reasoning", "**Listing files**"],
      ["reasoning-2", "assistant", "reasoning", "**Reading the file**"],
      ["msg-1", "assistant", "text", "It holds a menu."],
    ]);
    expect(ofType(events, "message.delta").map((e) => [e.messageId, e.text])).toEqual([
      ["reasoning-1", "**Listing"],
      ["reasoning-1", " files**"],
      ["reasoning-2", "**Reading the file**"],
      ["msg-1", "It holds "],
      ["msg-1", "a menu."],
    ]);
    // A UTF-8 character split across two base64 chunks decodes whole.
    expect(ofType(events, "tool.progress").map((e) => e.output)).toEqual(["caf", "é.txt\n"]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ toolCallId: "call_ls", exitCode: 0, durationMs: 42, isError: false });
    expect(ofType(events, "rate_limit").map((e) => [e.limit, e.status])).toEqual([
      ["primary", "allowed"],
      ["secondary", "rejected"],
    ]);
    expect(summary.usage).toEqual({
      inputTokens: 3000,
      outputTokens: 60,
      cacheReadTokens: 1000,
      cacheWriteTokens: null,
      reasoningTokens: 20,
    });
    expect(summary.status).toBe("success");
    expect(summary.finalText).toBe("It holds a menu.");
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("legacy-proto-patch-mcp-flat-usage-aborted: patch changes, MCP Err, flat token_count as deltas, turn_aborted → interrupted", () => {
    const { events, summary } = readFile(fixturePath("codex", "legacy-proto-patch-mcp-flat-usage-aborted.ndjson"));
    expect(summary.sessionId).toBe("0199894d-1111-7000-8000-00000000000b");
    expect(summary.model).toBe("gpt-5-codex");
    expect(ofType(events, "file.changed")[0]).toEqual(
      expect.objectContaining({
        toolCallId: "call_p",
        status: "error",
        changes: [
          { path: "/p/new.txt", kind: "add", diff: "hello\n" },
          { path: "/p/old.txt", kind: "delete" },
          { path: "/p/a.txt", kind: "rename", newPath: "/p/b.txt", diff: "@@ -1 +1 @@\n-a\n+b\n" },
        ],
      }),
    );
    expect(summary.toolCalls).toEqual([
      { id: "call_p", name: "apply_patch", status: "error" },
      { id: "call_m", name: "search", status: "error" },
    ]);
    expect(ofType(events, "tool.completed")[1]).toMatchObject({ output: "tool call timed out", durationMs: 1000 });
    expect(ofType(events, "plan.updated")[0]?.items.map((i) => i.status)).toEqual(["completed", "in_progress", "pending"]);
    expect(ofType(events, "usage").map((e) => e.scope)).toEqual(["delta", "delta"]);
    expect(summary.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 40,
      cacheReadTokens: 500,
      cacheWriteTokens: null,
      reasoningTokens: 0,
    });
    expect(ofType(events, "retry")).toHaveLength(1);
    expect(summary.status).toBe("interrupted");
    expect(summary.error).toBe("turn aborted: interrupted");
  });
});

describeDialect(
  codex,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("codex", "collab-plan-request-input-warning.ndjson"), "utf8") },
);
describeDialect(
  codex,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("codex", "legacy-config-prompt-deltas-sections-exec.ndjson"), "utf8") },
);

describe.skipIf(!hasShared)("codex real captures (../shared/fixtures/codex)", () => {
  const usage = (
    inputTokens: number,
    cacheReadTokens: number,
    outputTokens: number,
    cacheWriteTokens: number | null = null,
    reasoningTokens: number | null = null,
  ) => ({
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    reasoningTokens,
  });

  it.each<
    [
      string,
      {
        finalText: string | null;
        tools: [string, string, string][];
        usage: ReturnType<typeof usage> | null;
        status: string;
        error?: string;
        sessionId?: string;
        costUsd?: number;
      },
    ]
  >([
    [
      "agentcmd_exec_json_stream-output-1.jsonl",
      { finalText: "4", tools: [], usage: usage(2946, 0, 7), status: "success", sessionId: "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5" },
    ],
    [
      "agentcmd_exec_json_stream-output-2.jsonl",
      {
        finalText: "Files here: `stream-output-1.jsonl`, `stream-output-2.jsonl`, `test.js`.",
        tools: [["item_1", "shell", "success"]],
        usage: usage(6040, 4992, 129),
        status: "success",
      },
    ],
    [
      "agentcmd_exec_json_stream-output-3.jsonl",
      {
        finalText: "Created `hello.txt` containing `Hello from Codex`.",
        tools: [["item_1", "file_change", "success"]],
        usage: usage(6008, 4096, 51),
        status: "success",
      },
    ],
    [
      "agentcmd_exec_json_stream-output-4.jsonl",
      {
        finalText:
          "`test.js` simply contains `console.log('Hello World');`, so running it will print the string “Hello World” to the standard output.",
        tools: [["item_1", "shell", "success"]],
        usage: usage(6087, 5120, 204),
        status: "success",
      },
    ],
    [
      "agentcmd_exec_json_stream-output-5.jsonl",
      {
        finalText:
          "Found 1 text file `hello.txt`, 5 JSONL logs `stream-output-{1..5}.jsonl`, and `test.js`. There was also a harmless `ps` permission warning from Homebrew’s shellenv script while listing.",
        tools: [["item_1", "shell", "success"]],
        usage: usage(6086, 2944, 223),
        status: "success",
      },
    ],
    [
      "adkharness_warning_error_items_before_turn_zsh_command.jsonl",
      {
        finalText: "There are 8 `.py` files in `src/adk_harness`.",
        tools: [["item_5", "shell", "success"]],
        usage: usage(58666, 39424, 234, 0, 136),
        status: "success",
      },
    ],
    [
      "autocrucible_usage_limit_error_turn_failed.jsonl",
      {
        finalText: null,
        tools: [],
        usage: null,
        status: "error",
        error:
          "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Apr 29th, 2026 1:19 PM.",
      },
    ],
    [
      "finnamon_bash_file_change_started_mcp_denied.jsonl",
      {
        finalText: "1. Succeeded.\n2. Failed.\n3. Failed.\n4. Succeeded.\n5. Failed.",
        tools: [
          ["item_1", "shell", "success"],
          ["item_2", "file_change", "success"],
          ["item_3", "echo", "error"],
        ],
        usage: usage(104698, 70400, 371, 0, 0),
        status: "success",
      },
    ],
    [
      "md2okf_command_failed_exit2_then_success.jsonl",
      {
        finalText: "SPIKE-SKILL-MARKER-4c1e",
        tools: [
          ["item_1", "shell", "error"],
          ["item_3", "shell", "success"],
        ],
        usage: usage(30110, 27648, 359, 0, 33),
        status: "success",
      },
    ],
    [
      "md2okf_unknown_model_error_item_then_turn_failed.jsonl",
      {
        finalText: null,
        tools: [],
        usage: null,
        status: "error",
        error: '{"detail":"The \'md2okf-spike-no-such-model\' model is not supported when using Codex with a ChatGPT account."}',
      },
    ],
    [
      "tauceti_0.160_mcp_tool_call_structured_content.jsonl",
      {
        finalText:
          "t : ℝ\nht : 2 ≤ t\nhsum : ∀ (u : ℝ), 1 < u → Summable fun m => ↑m ^ (-u)\nhfun : (fun m => ↑m ^ (-2)) = fun m => 1 / ↑m ^ 2\nhzeta : ∑' (m : ℕ), ↑m ^ (-2) = Real.pi ^ 2 / 6\n⊢ Real.pi ^ 2 / 6 ≤ 2",
        tools: [
          ["item_3", "lean_sync", "success"],
          ["item_4", "lean_goals", "success"],
        ],
        usage: usage(62755, 57216, 408, 0, 43),
        status: "success",
      },
    ],
    [
      "legacy_exec_json_vibe-kanban_basic_reasoning_exec.jsonl",
      {
        finalText:
          "I can see the directory structure of your project. This appears to be a Rust project with a frontend/backend architecture, using pnpm for package management. The project includes various configuration files, documentation, and development assets.",
        tools: [["call_I1o1QnQDtlLjGMg4Vd9HXJLd", "exec_command", "success"]],
        usage: null,
        status: "success",
      },
    ],
    [
      "legacy_exec_json_vibe-kanban_config_prompt_error.jsonl",
      {
        finalText: null,
        tools: [],
        usage: null,
        status: "error",
        error:
          "Missing environment variable: `OPENAI_API_KEY`. Create an API key (https://platform.openai.com) and export it as an environment variable.",
      },
    ],
    [
      "legacy_exec_json_vibe-kanban_mcp_tool_call.jsonl",
      {
        finalText: "Here are your projects",
        tools: [["call_KHwEJyaUuL5D8sO7lPfImx7I", "list_projects", "success"]],
        usage: null,
        status: "incomplete",
      },
    ],
    [
      "legacy_exec_json_vibe-kanban_patch_apply.jsonl",
      { finalText: null, tools: [["call_zr84aWQuwJR3aWgJLkfv56Gl", "apply_patch", "success"]], usage: null, status: "incomplete" },
    ],
    [
      "legacy_exec_json_vibe-kanban_token_count_flat.jsonl",
      { finalText: "Done!", tools: [], usage: usage(1674, 1627, 384, null, 384), status: "success" },
    ],
    [
      "legacy_proto_acplazybridge_wrapper_test_20250927.jsonl",
      {
        finalText: "Hey! How can I help you today?",
        tools: [],
        usage: usage(2552, 0, 15, null, 0),
        status: "success",
        sessionId: "0199894d-068c-70a1-857c-753ef9abf7b5",
        // No cost in the stream: estimated from the price table (gpt-5-codex, $1.25 input, $10 output per million).
        costUsd: 0.00334,
      },
    ],
  ])("%s", (name, facts) => {
    const { events, summary } = readFile(capture(name));
    expect(summary.dialect).toBe("codex");
    expect(summary.agent).toBe("codex");
    expect(summary.finalText).toBe(facts.finalText);
    expect(summary.toolCalls.map((t) => [t.id, t.name, t.status])).toEqual(facts.tools);
    const none = { inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
    expect(summary.usage).toEqual(facts.usage ?? none);
    expect(summary.costUsd).toBe(facts.costUsd ?? null);
    expect(summary.durationMs).toBeNull();
    expect(summary.status).toBe(facts.status);
    expect(summary.error).toBe(facts.error ?? null);
    if (facts.sessionId !== undefined) expect(summary.sessionId).toBe(facts.sessionId);
    expect(ofType(events, "unknown")).toEqual([]);
  });

  it("adkharness: the three warning items before turn.started stay before it, as warning notices", () => {
    const { events } = readFile(capture("adkharness_warning_error_items_before_turn_zsh_command.jsonl"));
    const turn = events.findIndex((e) => e.type === "turn.started");
    expect(events.slice(0, turn).filter((e) => e.type === "notice" && e.level === "warning")).toHaveLength(3);
    expect(ofType(events, "notice")).toHaveLength(4);
    expect(ofType(events, "error")).toEqual([]);
  });

  it("tauceti: MCP results keep structured_content as the result and the text block as output", () => {
    const { events } = readFile(capture("tauceti_0.160_mcp_tool_call_structured_content.jsonl"));
    const [sync] = ofType(events, "tool.completed");
    expect(ofType(events, "tool.started")[0]).toMatchObject({
      kind: "mcp",
      server: "lean_beam",
      input: { path: "TauCeti/Analysis/PSeries.lean" },
    });
    expect(sync?.result).toMatchObject({ readiness: { reason: "ok", save_ready: true }, version: 1 });
    expect(JSON.parse(sync?.output ?? "null")).toEqual(sync?.result);
  });

  it("md2okf unknown model: the error item is a warning, the JSON-in-string error is kept verbatim", () => {
    const { events } = readFile(capture("md2okf_unknown_model_error_item_then_turn_failed.jsonl"));
    expect(ofType(events, "notice")[0]).toMatchObject({
      level: "warning",
      text: expect.stringContaining("Model metadata for `md2okf-spike-no-such-model` not found"),
    });
    expect(ofType(events, "error")[0]?.message).toBe(
      '{"detail":"The \'md2okf-spike-no-such-model\' model is not supported when using Codex with a ChatGPT account."}',
    );
  });

  it("acplazybridge proto: nine deltas and the full message share one id; ANSI log lines are text events", () => {
    const { events } = readFile(capture("legacy_proto_acplazybridge_wrapper_test_20250927.jsonl"), { repair: false });
    const deltas = ofType(events, "message.delta");
    expect(deltas).toHaveLength(9);
    expect(new Set(deltas.map((d) => d.messageId))).toEqual(new Set(["msg-1"]));
    expect(ofType(events, "message.completed")[0]).toMatchObject({ messageId: "msg-1", text: "Hey! How can I help you today?" });
    expect(ofType(events, "text").map((e) => e.position)).toEqual(["preamble", "interleaved"]);
  });

  it("vibe-kanban patch_apply: file.changed from the begin record's changes", () => {
    const { events } = readFile(capture("legacy_exec_json_vibe-kanban_patch_apply.jsonl"));
    expect(ofType(events, "file.changed")[0]?.changes).toEqual([
      {
        path: "/private/var/folders/4m/6cwx14sx59lc2k9km5ph76gh0000gn/T/vibe-kanban-dev/vk-a712-minor-rest/README.md",
        kind: "update",
        diff: "@@ -18,2 +18,17 @@\n \n+## Table of Contents\n+\n+- [Overview](#overview)\n+- [Installation](#installation)",
      },
    ]);
  });
});
