import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { codexThread } from "../../../src/formats/codex-thread/decode.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll } from "../../helpers/read.ts";
import { captureRecords, jsonRecord } from "../../helpers/records.ts";
import { hasShared } from "../../helpers/shared.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

const decode = (...lines: object[]) =>
  readAll([`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`], { dialect: codexThread, repair: false });
const shapes = (events: AgentEvent[]) => events.map(({ v, seq, source, ...rest }) => rest);
const T = "2026-02-01T09:00:00Z";
let n = 0;
const rec = (type: string, fields: object = {}) => ({ type, timestamp: T, sequence: n++, thread_id: "th-1", ...fields });

describe("codex-thread: detection", () => {
  it.each([
    [
      "thread.started with sequence",
      jsonRecord(rec("thread.started", { task: null, project_name: null, parent_branch_id: null, headless: true })),
      true,
    ],
    [
      "item.completed with sequence",
      jsonRecord(rec("item.completed", { item_id: "i", status: "success", duration_ms: 1, summary: "" })),
      true,
    ],
    [
      "a real Codex thread.started (no sequence, no timestamp)",
      jsonRecord({ type: "thread.started", thread_id: "0199a213-81c0-7800-8aa1-bbab2a035a53" }),
      false,
    ],
    [
      "a real Codex item.completed",
      jsonRecord({ type: "item.completed", item: { id: "item_0", type: "agent_message", text: "hi" } }),
      false,
    ],
    ["an unknown type with a sequence", jsonRecord({ type: "review.iteration", timestamp: T, sequence: 1, thread_id: "t" }), false],
  ])("%s", (_name, record, expected) => {
    expect(codexThread.detect(record)).toBe(expected);
  });

  it("the registry picks codex-thread before codex for a line with a sequence", () => {
    expect(detectDialect(jsonRecord(rec("turn.started", { turn_id: "t", iteration: 1, message_count: 1 })))?.name).toBe("codex-thread");
    expect(detectDialect(jsonRecord({ type: "thread.started", thread_id: "x" }))?.name).toBe("codex");
  });

  it.skipIf(!hasShared)("claims no record of any real capture (real Codex thread.started lines included)", () => {
    const claimed = captureRecords().filter(({ record }) => codexThread.detect(record));
    expect(claimed.map(({ file, record }) => `${file}:${record.line}`)).toEqual([]);
  });
});

describe("codex-thread: record shapes", () => {
  it.each([
    [
      "thread.started → session.started; the design's fields go to details",
      [rec("thread.started", { task: "Fix foo", project_name: "acme", parent_branch_id: "123", headless: true })],
      [
        {
          type: "session.started",
          sessionId: "th-1",
          details: { task: "Fix foo", project_name: "acme", parent_branch_id: "123", headless: true },
          time: T,
        },
      ],
    ],
    [
      "a synthesized thread.started (our writer, no session in the input) → nothing",
      [rec("thread.started", { task: null, project_name: null, parent_branch_id: null, headless: null, synthesized: true })],
      [],
    ],
    [
      "turns",
      [
        rec("turn.started", { turn_id: "turn_1", iteration: 1, message_count: 2 }),
        rec("turn.completed", { turn_id: "turn_1", iteration: 1, tool_call_count: 0, has_final_report: true }),
      ],
      [
        { type: "turn.started", turnId: "turn_1", time: T },
        { type: "turn.completed", turnId: "turn_1", time: T },
      ],
    ],
    [
      "a tool item: args → input; the design's summary is the output; branch_id kept as result",
      [
        rec("item.started", { item_id: "item_1", kind: "tool_call", name: "execute_agent", args: { agent: "codex" } }),
        rec("item.completed", { item_id: "item_1", status: "success", duration_ms: 4523, branch_id: "b456", summary: "done" }),
      ],
      [
        { type: "tool.started", toolCallId: "item_1", name: "execute_agent", input: { agent: "codex" }, time: T },
        {
          type: "tool.completed",
          toolCallId: "item_1",
          name: "execute_agent",
          output: "done",
          result: { branch_id: "b456" },
          isError: false,
          durationMs: 4523,
          time: T,
        },
      ],
    ],
    [
      "our writer's tool item: output null is no output, even with a summary",
      [
        rec("item.started", { item_id: "t", kind: "tool_call", name: "Edit", args: null }),
        rec("item.completed", {
          item_id: "t",
          kind: "tool_call",
          name: "Edit",
          status: "error",
          duration_ms: null,
          summary: "exit 1",
          output: null,
          exit_code: 1,
        }),
      ],
      [
        { type: "tool.started", toolCallId: "t", name: "Edit", time: T },
        { type: "tool.completed", toolCallId: "t", name: "Edit", exitCode: 1, isError: true, time: T },
      ],
    ],
    [
      "a message item → a message with its full text",
      [
        rec("item.started", { item_id: "m", kind: "agent_message", name: "assistant", args: null }),
        rec("item.completed", {
          item_id: "m",
          kind: "agent_message",
          name: "assistant",
          status: "success",
          duration_ms: null,
          summary: "Hello",
          text: "Hello\nworld",
        }),
      ],
      [
        { type: "message.started", messageId: "m", role: "assistant", kind: "text", time: T },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello\nworld", time: T },
      ],
    ],
    [
      "error: the design's mcp scope → tool, kept as the code",
      [rec("error", { scope: "mcp", message: "MCP server exited", item_id: "item_1", iteration: 1 })],
      [{ type: "error", scope: "tool", message: "MCP server exited", code: "mcp", toolCallId: "item_1", time: T }],
    ],
    [
      "thread.completed → session.completed from the final report",
      [
        rec("thread.completed", {
          status: "completed",
          summary: "ok",
          final_report: { final_text: "Done.", usage: { input_tokens: 3 }, duration_ms: 7 },
        }),
      ],
      [
        {
          type: "session.completed",
          status: "success",
          finalText: "Done.",
          usage: { inputTokens: 3, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
          durationMs: 7,
          time: T,
        },
      ],
    ],
    [
      "thread.completed failed without an error field → the summary is the error",
      [rec("thread.completed", { status: "failed", summary: "LLM failure", final_report: null })],
      [{ type: "session.completed", status: "error", error: "LLM failure", time: T }],
    ],
    [
      "thread.completed incomplete (our writer: the input ended) → nothing",
      [rec("thread.completed", { status: "incomplete", summary: "", final_report: null })],
      [],
    ],
    [
      "publish.started / publish.completed → a publish tool call",
      [
        rec("publish.started", { parent_branch_id: "1", workspace_dir: "/w" }),
        rec("publish.completed", { branch_id: "2", publish_report: "PR opened" }),
      ],
      [
        { type: "tool.started", toolCallId: "publish-1", name: "publish", input: { parent_branch_id: "1", workspace_dir: "/w" }, time: T },
        {
          type: "tool.completed",
          toolCallId: "publish-1",
          name: "publish",
          output: "PR opened",
          result: { branch_id: "2" },
          isError: false,
          time: T,
        },
      ],
    ],
    [
      "log carrying an agentstream event → that event",
      [rec("log", { level: "info", message: "retry 2", event: { type: "retry", attempt: 2 } })],
      [{ type: "retry", attempt: 2 }],
    ],
    [
      "a plain log → notice",
      [rec("log", { level: "warning", message: "slow" })],
      [{ type: "notice", kind: "log", level: "warning", text: "slow", time: T }],
    ],
    [
      "the epoch timestamp (our writer: no time known) is no time",
      [{ ...rec("turn.started", { turn_id: "a", iteration: 1, message_count: null }), timestamp: "1970-01-01T00:00:00.000Z" }],
      [{ type: "turn.started", turnId: "a" }],
    ],
  ])("%s", (_name, lines, expected) => {
    expect(shapes(decode(...lines).events)).toEqual(expected);
  });

  it("an unknown type (the design's future helpers) is kept verbatim and reported", () => {
    const line = rec("review.iteration", { round: 1 });
    const { events, issues } = decode(
      rec("thread.started", { task: null, project_name: null, parent_branch_id: null, headless: null }),
      line,
    );
    expect(events.at(-1)).toMatchObject({ type: "unknown", raw: line });
    expect(issues.map((i) => i.code)).toEqual(["unknown-record"]);
  });
});

describeDialect(
  codexThread,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("codex-thread", "dev-agent-design-flow.ndjson"), "utf8") },
);
describeDialect(
  codexThread,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("codex-thread", "errors-and-iteration-limit.ndjson"), "utf8") },
);

describe("codex-thread: fixtures", () => {
  it("dev-agent-design-flow: the design's sample flow, publish included", () => {
    const { summary, dialect } = readAll([readFileSync(fixturePath("codex-thread", "dev-agent-design-flow.ndjson"))]);
    expect(dialect).toBe("codex-thread");
    expect(summary).toMatchObject({ sessionId: "0b5e9a51-4f1c-4c53-a4d2-2f7a6a1c9e10", status: "success", turns: 1 });
    expect(summary.toolCalls).toEqual([
      { id: "item_1", name: "execute_agent", status: "success" },
      { id: "publish-1", name: "publish", status: "success" },
    ]);
  });

  it("errors-and-iteration-limit: the failed item, the MCP error, an unknown helper event, the limit as an error", () => {
    const { summary, events } = readAll([readFileSync(fixturePath("codex-thread", "errors-and-iteration-limit.ndjson"))]);
    expect(summary).toMatchObject({ status: "error", error: "Stopped after 1 iteration." });
    expect(summary.toolCalls).toEqual([{ id: "item_1", name: "read_artifact", status: "error" }]);
    expect(events.filter((e) => e.type === "unknown")).toHaveLength(1);
  });
});
