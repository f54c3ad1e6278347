import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexSession } from "../../../src/agents/codex/rollout.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

/** The decoder's own output (no repair stage). */
const raw = (text: string) => readAll([text], { dialect: "codex-session", repair: false });
const T0 = "2026-09-20T10:00:00.000Z";
const line = (type: string, payload: Record<string, unknown>, timestamp = T0): string => JSON.stringify({ timestamp, type, payload });
const META = line("session_meta", {
  id: "01a0dddd-0000-7000-8000-000000000001",
  cwd: "/w",
  cli_version: "0.150.0",
  originator: "codex-tui",
});
const shape = (e: AgentEvent): Record<string, unknown> => {
  const { v, seq, source, sessionId, time, ...rest } = e as AgentEvent & Record<string, unknown>;
  return rest;
};
/** Events after session.started for the given lines. */
const afterMeta = (...records: string[]) =>
  raw(`${[META, ...records].join("\n")}\n`)
    .events.slice(1)
    .map(shape);

describe("codex-session detection", () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ["session_meta", { timestamp: T0, type: "session_meta", payload: { id: "x" } }, true],
    ["response_item", { timestamp: T0, type: "response_item", payload: { type: "message", role: "user", content: [] } }, true],
    ["event_msg", { timestamp: T0, type: "event_msg", payload: { type: "task_started" } }, true],
    ["turn_context", { timestamp: T0, type: "turn_context", payload: { model: "m" } }, true],
    ["token_usage_record", { timestamp: T0, type: "token_usage_record", payload: {} }, true],
    ["compacted", { timestamp: T0, type: "compacted", payload: { message: "" } }, true],
    ["event_msg without payload", { type: "event_msg" }, false],
    ["codex exec thread.started", { type: "thread.started", thread_id: "t" }, false],
    ["codex exec item.completed", { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "x" } }, false],
    ["legacy codex {id,msg}", { id: "1", msg: { type: "task_started" } }, false],
    ["gemini message", { type: "message", timestamp: T0, role: "user", content: "x" }, false],
  ])("%s → %s", (_name, value, expected) => {
    expect(codexSession.detect(jsonRecord(value))).toBe(expected);
  });

  it("auto-detection picks codex-session for a rollout's first line", () => {
    expect(detectDialect(jsonRecord(JSON.parse(META) as Record<string, unknown>))?.name).toBe("codex-session");
  });

  it.skipIf(!hasShared)("claims no other agent's first records in ../shared/fixtures", () => {
    const root = sharedPath("fixtures");
    for (const folder of readdirSync(root)) {
      if (folder === "codex-session" || folder === "protocols" || !statSync(join(root, folder)).isDirectory()) continue;
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
      for (const file of walk(join(root, folder))) {
        for (const text of readFileSync(file, "utf8").split("\n").slice(0, 20)) {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            continue;
          }
          if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
          expect(codexSession.detect(jsonRecord(value as Record<string, unknown>)), `${folder}: ${text.slice(0, 80)}`).toBe(false);
        }
      }
    }
  });
});

describe("codex-session record shapes", () => {
  it("session_meta → session.started (agent, version, cwd, id; the rest in details)", () => {
    const { events } = raw(
      `${line("session_meta", { id: "s1", session_id: "s1", cwd: "/w", cli_version: "0.154.0", originator: "codex_exec", git: { branch: "main" }, base_instructions: { text: "You are Codex.", provenance: { type: "model", model: "gpt-5.4" } } })}\n`,
    );
    expect(events.map(shape)).toEqual([
      {
        type: "session.started",
        agent: "codex",
        agentVersion: "0.154.0",
        model: "gpt-5.4",
        cwd: "/w",
        details: {
          originator: "codex_exec",
          git: { branch: "main" },
          base_instructions: { text: "You are Codex.", provenance: { type: "model", model: "gpt-5.4" } },
        },
      },
    ]);
    expect(events[0]).toMatchObject({ sessionId: "s1", time: T0 });
  });

  it.each<[string, string[], Record<string, unknown>[]]>([
    [
      "assistant message with phase → message with channel",
      [
        line("response_item", {
          type: "message",
          role: "assistant",
          id: "msg_1",
          phase: "final_answer",
          content: [
            { type: "output_text", text: "A" },
            { type: "output_text", text: "B" },
          ],
        }),
      ],
      [
        { type: "message.started", messageId: "msg_1", role: "assistant", kind: "text", channel: "final_answer" },
        { type: "message.completed", messageId: "msg_1", role: "assistant", kind: "text", text: "AB", channel: "final_answer" },
      ],
    ],
    [
      "developer message → role developer",
      [line("response_item", { type: "message", role: "developer", content: [{ type: "input_text", text: "rules" }] })],
      [
        { type: "message.started", messageId: "developer-1", role: "developer", kind: "text" },
        { type: "message.completed", messageId: "developer-1", role: "developer", kind: "text", text: "rules" },
      ],
    ],
    [
      "reasoning with only encrypted_content → redacted_reasoning with the ciphertext as signature",
      [line("response_item", { type: "reasoning", id: "rs_1", summary: [], content: null, encrypted_content: "gAAA" })],
      [
        { type: "message.started", messageId: "rs_1", role: "assistant", kind: "redacted_reasoning" },
        { type: "message.completed", messageId: "rs_1", role: "assistant", kind: "redacted_reasoning", text: "", signature: "gAAA" },
      ],
    ],
    [
      "function_call then function_call_output → tool pair by call_id, exit code from the output text",
      [
        line("response_item", { type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: "c1" }),
        line("response_item", {
          type: "function_call_output",
          call_id: "c1",
          output: "Wall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nno such file\n",
        }),
      ],
      [
        { type: "tool.started", toolCallId: "c1", name: "exec_command", kind: "command", input: { cmd: "ls" } },
        {
          type: "tool.completed",
          toolCallId: "c1",
          name: "exec_command",
          output: "Wall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nno such file\n",
          exitCode: 1,
          isError: true,
        },
      ],
    ],
    [
      "function_call with arguments that are not JSON → input kept as the string",
      [line("response_item", { type: "function_call", name: "odd", arguments: "not json", call_id: "c2" })],
      [{ type: "tool.started", toolCallId: "c2", name: "odd", kind: "other", input: "not json" }],
    ],
    [
      "function_call_output {content, success:false} → isError",
      [
        line("response_item", { type: "function_call", name: "read_file", arguments: '{"path":"x"}', call_id: "c3" }),
        line("response_item", { type: "function_call_output", call_id: "c3", output: { content: "denied", success: false } }),
      ],
      [
        { type: "tool.started", toolCallId: "c3", name: "read_file", kind: "file_read", input: { path: "x" } },
        { type: "tool.completed", toolCallId: "c3", name: "read_file", output: "denied", isError: true },
      ],
    ],
    [
      "token_count → cumulative usage from total_token_usage, plus one rate_limit per window",
      [
        line("event_msg", {
          type: "token_count",
          info: {
            total_token_usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 2, reasoning_output_tokens: 1, total_tokens: 12 },
            last_token_usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 2, reasoning_output_tokens: 1, total_tokens: 12 },
          },
          rate_limits: { primary: { used_percent: 1.5, window_minutes: 300, resets_in_seconds: 60 } },
        }),
      ],
      [
        {
          type: "usage",
          usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: null, reasoningTokens: 1 },
          scope: "cumulative",
        },
        {
          type: "rate_limit",
          status: "allowed",
          resetsAt: "2026-09-20T10:01:00.000Z",
          limit: "primary",
          details: { used_percent: 1.5, window_minutes: 300, resets_in_seconds: 60 },
        },
      ],
    ],
    [
      "stream_error Reconnecting → retry",
      [line("event_msg", { type: "stream_error", message: "Reconnecting... 2/5" })],
      [{ type: "retry", attempt: 2, maxAttempts: 5, error: "Reconnecting... 2/5" }],
    ],
    [
      "turn_context → an info notice naming the model and policies",
      [
        line("turn_context", {
          model: "gpt-5.4",
          approval_policy: "on-request",
          sandbox_policy: { type: "read-only" },
          effort: "high",
          cwd: "/w",
        }),
      ],
      [
        {
          type: "notice",
          kind: "turn_context",
          level: "info",
          text: "model gpt-5.4, effort high, approval on-request, sandbox read-only",
          details: { model: "gpt-5.4", approval_policy: "on-request", sandbox_policy: { type: "read-only" }, effort: "high", cwd: "/w" },
        },
      ],
    ],
  ])("%s", (_name, records, expected) => {
    expect(afterMeta(...records).slice(0, expected.length)).toEqual(expected);
  });

  it("every event of a record carries the record's timestamp", () => {
    const { events } = raw([META, line("event_msg", { type: "agent_message", message: "hi" }, "2026-09-20T10:00:05.000Z")].join("\n"));
    expect(events.slice(1).map((e) => e.time)).toEqual(["2026-09-20T10:00:05.000Z", "2026-09-20T10:00:05.000Z"]);
  });

  it("a repeated item id (a fork replays history) gets a fresh message id, so no message completes twice", () => {
    const msg = (text: string) =>
      line("response_item", { type: "message", role: "assistant", id: "msg_1", content: [{ type: "output_text", text }] });
    const { events } = raw([META, msg("one"), msg("two")].join("\n"));
    expect(ofType(events, "message.completed").map((e) => [e.messageId, e.text])).toEqual([
      ["msg_1", "one"],
      ["msg-1", "two"],
    ]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it.each([
    ["mcp__docs__search", "docs"],
    ["github__create_issue", "github"],
  ])("MCP tool name %s → kind mcp, server %s", (name, server) => {
    const events = afterMeta(line("response_item", { type: "function_call", name, arguments: "{}", call_id: "c" }));
    expect(events[0]).toMatchObject({ type: "tool.started", name, kind: "mcp", server });
  });

  it("the same text told by two event_msgs is not paired (only response_item with event_msg is)", () => {
    const events = afterMeta(
      line("event_msg", { type: "agent_message", message: "same" }),
      line("event_msg", { type: "agent_message", message: "same" }),
    );
    expect(events.filter((e) => e.type === "message.completed")).toHaveLength(2);
  });
});

describe("codex-session synthetic fixtures", () => {
  it("response-item-then-event-msg-duplicates: each text once, the event_msg copies are duplicate notices", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "response-item-then-event-msg-duplicates.ndjson"));
    expect(ofType(events, "message.completed").map((e) => [e.messageId, e.role, e.kind, e.channel])).toEqual([
      ["developer-1", "developer", "text", undefined],
      ["user-1", "user", "text", undefined],
      ["user-2", "user", "text", undefined],
      ["rs_01", "assistant", "reasoning", undefined],
      ["msg_01", "assistant", "text", "commentary"],
      ["msg_02", "assistant", "text", "final_answer"],
    ]);
    const duplicates = ofType(events, "notice").filter((n) => n.kind === "duplicate");
    expect(duplicates.map((n) => n.details?.messageId)).toEqual(["user-2", "rs_01", "rs_01", "msg_01", "msg_02"]);
    expect(duplicates.every((n) => n.level === "info")).toBe(true);
    // exec_command_end ends the call (exit code, duration); the function_call_output the model saw is a notice.
    expect(summary.toolCalls).toEqual([{ id: "call_b1", name: "exec_command", status: "error" }]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({
      exitCode: 2,
      durationMs: 4250,
      output: "error TS2304: Cannot find name 'foo'.\n",
    });
    expect(ofType(events, "notice").filter((n) => n.kind === "tool_output")).toHaveLength(1);
    expect(summary.usage).toEqual({
      inputTokens: 11000,
      outputTokens: 200,
      cacheReadTokens: 8000,
      cacheWriteTokens: null,
      reasoningTokens: 60,
    });
    expect(ofType(events, "metric")[0]).toMatchObject({ name: "turn_timing", values: { duration_ms: 11800, time_to_first_token_ms: 900 } });
    expect(summary.finalText).toBe("The build fails because `foo` is undefined in src/index.ts.");
    expect(summary.status).toBe("success");
    expect(summary.agentVersion).toBe("0.150.0");
    expect(ofType(events, "usage").every((u) => u.model === "gpt-5.4")).toBe(true);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("event-msg-then-response-item-duplicates: the first copy is the message whichever source it is", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "event-msg-then-response-item-duplicates.ndjson"));
    expect(ofType(events, "message.completed").map((e) => [e.role, e.kind, e.text])).toEqual([
      ["user", "text", "Say hi"],
      ["assistant", "reasoning", "**Greeting**"],
      ["assistant", "text", "Hi!"],
    ]);
    expect(
      ofType(events, "notice")
        .filter((n) => n.kind === "duplicate")
        .map((n) => n.details?.record),
    ).toEqual(["response_item message", "response_item reasoning", "response_item message"]);
    expect(summary.finalText).toBe("Hi!");
    expect(summary.usage.inputTokens).toBe(800);
  });

  it("encrypted-only-reasoning-and-raw-content: redacted_reasoning; raw reasoning on channel raw", () => {
    const { events } = readFile(fixturePath("codex-session", "encrypted-only-reasoning-and-raw-content.ndjson"));
    expect(ofType(events, "message.completed").map((e) => [e.kind, e.text, e.channel, e.signature])).toEqual([
      ["redacted_reasoning", "", undefined, "gAAAAB-only-cipher"],
      ["reasoning", "raw chain of thought", "raw", undefined],
      ["text", "42", undefined, undefined],
    ]);
  });

  it("apply-patch-custom-and-function-call: file.changed from patch_apply_end, or parsed from the patch text", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "apply-patch-custom-and-function-call.ndjson"));
    const changed = ofType(events, "file.changed");
    expect(changed.map((e) => e.toolCallId)).toEqual(["call_p1", "call_p2"]);
    expect(changed[0]?.changes.map((c) => [c.path, c.kind, c.newPath])).toEqual([
      ["docs/new.md", "add", undefined],
      ["src/a.ts", "update", undefined],
      ["src/old.ts", "rename", "src/renamed.ts"],
      ["src/gone.ts", "delete", undefined],
    ]);
    expect(changed[1]?.changes).toEqual([{ path: "README.md", kind: "update", diff: "@@\n-old line\n+new line" }]);
    expect(summary.toolCalls).toEqual([
      { id: "call_p1", name: "apply_patch", status: "success" },
      { id: "call_p2", name: "apply_patch", status: "success" },
    ]);
    expect(ofType(events, "tool.started").map((e) => e.kind)).toEqual(["file_edit", "file_edit"]);
  });

  it("turn-aborted-interrupted: the running call is closed with the abort reason; status interrupted", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "turn-aborted-interrupted.ndjson"));
    expect(ofType(events, "tool.completed")[0]).toMatchObject({
      toolCallId: "call_s1",
      isError: true,
      output: "turn aborted: interrupted",
    });
    expect(summary.status).toBe("interrupted");
    expect(summary.error).toBe("turn aborted: interrupted");
    expect(summary.finalText).toBe("Done with part one.");
    expect(summary.turns).toBe(2);
  });

  it("shell-json-output-update-plan-mcp-web-search: JSON shell output unwrapped, plan updates, MCP by name and by end event", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "shell-json-output-update-plan-mcp-web-search.ndjson"));
    expect(summary.model).toBe("gpt-5-codex");
    expect(summary.toolCalls).toEqual([
      { id: "call_plan", name: "update_plan", status: "success" },
      { id: "call_mcp", name: "mcp__docs__search", status: "success" },
      { id: "ws_9", name: "web_search", status: "success" },
      { id: "call_sh", name: "shell", status: "error" },
    ]);
    expect(ofType(events, "tool.started")[1]).toMatchObject({ kind: "mcp", server: "docs" });
    expect(ofType(events, "tool.completed")[1]).toMatchObject({ output: "3 hits", result: { hits: 3 }, durationMs: 300 });
    expect(ofType(events, "tool.completed")[3]).toMatchObject({
      output: "ls: missing: No such file or directory\n",
      exitCode: 1,
      durationMs: 200,
      isError: true,
    });
    expect(ofType(events, "plan.updated").map((e) => e.items.map((i) => i.status))).toEqual([
      ["in_progress", "pending", "pending"],
      ["completed", "completed", "in_progress"],
    ]);
  });

  it("rate-limits-only-token-count-and-usage-record: info null gives rate limits only; an error left open ends the session as error", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "rate-limits-only-token-count-and-usage-record.ndjson"));
    expect(ofType(events, "usage")).toEqual([]);
    expect(ofType(events, "rate_limit").map((e) => [e.limit, e.status, e.resetsAt])).toEqual([
      ["primary", "rejected", "2026-09-21T15:13:20.000Z"],
      ["secondary", "allowed", "2026-09-27T09:06:40.000Z"],
    ]);
    expect(ofType(events, "error")[0]).toMatchObject({ scope: "turn", code: "usage_limit_exceeded" });
    expect(summary.status).toBe("error");
    expect(summary.error).toBe("You've hit your usage limit. Try again later.");
  });

  it("token-usage-record-and-token-count: one cumulative usage per distinct thread total", () => {
    const { events, summary } = readFile(fixturePath("codex-session", "token-usage-record-and-token-count.ndjson"));
    expect(ofType(events, "usage").map((e) => e.usage.inputTokens)).toEqual([1000, 2500]);
    expect(summary.usage).toEqual({
      inputTokens: 2500,
      outputTokens: 30,
      cacheReadTokens: 1000,
      cacheWriteTokens: null,
      reasoningTokens: 5,
    });
  });

  it("unknown-and-informational-records: two unknown events with issues; documented records are notices", () => {
    const { events, issues, summary } = readFile(fixturePath("codex-session", "unknown-and-informational-records.ndjson"));
    expect(ofType(events, "unknown").map((e) => e.reason)).toEqual([
      'unknown codex event_msg type "hologram_projected"',
      'unknown codex response_item type "hologram"',
    ]);
    expect(issues.filter((i) => i.code === "unknown-record").map((i) => i.line)).toEqual([4, 5]);
    expect(ofType(events, "notice").map((e) => e.kind)).toEqual([
      "world_state",
      "compact_boundary",
      "compact_boundary",
      "ghost_snapshot",
      "warning",
      "session_meta",
    ]);
    expect(summary.sessionId).toBe("01a0bbbb-0000-7000-8000-000000000009");
    expect(summary.status).toBe("success");
  });
});

describeDialect(
  codexSession,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("codex-session", "response-item-then-event-msg-duplicates.ndjson"), "utf8") },
);

describe.skipIf(!hasShared)("codex-session real capture (../shared/fixtures/codex-session)", () => {
  const file = sharedPath("fixtures", "codex-session", "pagehub_0.154.0_exec_resume_rollout_filtered.jsonl");

  it("pagehub 0.154.0 exec + resume: two turns, thread-cumulative usage, final text from task_complete", () => {
    const { events, summary } = readFile(file);
    expect(summary.dialect).toBe("codex-session");
    expect(summary.agent).toBe("codex");
    expect(summary.agentVersion).toBe("0.154.0");
    expect(summary.sessionId).toBe("01a09103-3378-7c31-8e3b-5a07badfc8aa");
    expect(summary.status).toBe("success");
    expect(summary.error).toBeNull();
    expect(summary.finalText).toBe("OK");
    expect(summary.toolCalls).toEqual([]);
    // 31478 = 15359 (turn 1) + 16119 (turn 2): the thread total of the last token_count / token_usage_record.
    expect(summary.usage).toEqual({
      inputTokens: 31478,
      outputTokens: 10,
      cacheReadTokens: 24320,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    expect(summary.costUsd).toBeNull();
    // The span of the rollout's timestamps: 15:08:21.253 (session_meta.timestamp, the session's creation) to 15:08:33.321 (the second task_complete).
    expect(summary.durationMs).toBe(12068);
    expect(summary.turns).toBe(2);
    // session_meta names no model; turn_context does, and the usage records carry it.
    expect(summary.model).toBe("gpt-6-astra");
    expect(ofType(events, "turn.completed").map((e) => [e.turnId, e.status])).toEqual([
      ["01a09103-33c3-73a2-aa9a-e1637eec920b", "success"],
      ["01a09103-5773-70f2-99ab-84beeb8a16e2", "success"],
    ]);
    expect(ofType(events, "usage").map((e) => [e.usage.inputTokens, e.model])).toEqual([
      [15359, "gpt-6-astra"],
      [31478, "gpt-6-astra"],
    ]);
    expect(ofType(events, "metric").map((e) => e.values)).toEqual([
      { duration_ms: 6070, time_to_first_token_ms: 5697 },
      { duration_ms: 2861, time_to_first_token_ms: 2669 },
    ]);
    expect(ofType(events, "rate_limit").map((e) => [e.limit, e.status, e.resetsAt])).toEqual([
      ["primary", "allowed", "2026-09-11T20:08:24.000Z"],
      ["secondary", "allowed", "2026-09-18T15:08:24.000Z"],
      ["primary", "allowed", "2026-09-11T20:08:27.000Z"],
      ["secondary", "allowed", "2026-09-18T15:08:27.000Z"],
    ]);
    expect(ofType(events, "notice").map((e) => e.kind)).toEqual(["turn_context", "thread_settings_applied", "turn_context"]);
    expect(ofType(events, "unknown")).toEqual([]);
    expect(events.filter((e) => e.type !== "session.completed").every((e) => typeof e.time === "string")).toBe(true);
  });
});
