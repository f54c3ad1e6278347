import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cline } from "../../../src/agents/cline/decode.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

const line = (record: object): string => `${JSON.stringify(record)}\n`;
const decode = (...records: object[]) => readAll([records.map(line).join("")], { dialect: "cline" });

describe("cline detection", () => {
  it.each([
    [{ type: "say", text: "", ts: 1, say: "text" }, true],
    [{ type: "ask", text: "", ts: 1, ask: "followup" }, true],
    [{ type: "task_started", taskId: "123" }, true],
    [{ type: "say", text: "no ts", say: "text" }, false],
    [{ type: "task_started" }, false],
    [{ type: "error", message: "x" }, false],
    [{ type: "assistant", message: {} }, false],
  ])("%j → %s", (value, expected) => {
    expect(cline.detect({ kind: "json", value: value as never, line: 1, offset: 0, length: 1 })).toBe(expected);
  });
  it("never claims a text line", () => {
    expect(cline.detect({ kind: "text", text: '{"type":"say"', line: 1, offset: 0, length: 1 })).toBe(false);
  });
});

describe("cline record shapes", () => {
  it.each([
    ["say:reasoning → reasoning message", { type: "say", text: "hmm", ts: 2, say: "reasoning" }, "message.completed"],
    ["say:checkpoint_created → notice", { type: "say", text: "", ts: 2, say: "checkpoint_created" }, "notice"],
    ["say:error → error", { type: "say", text: "boom", ts: 2, say: "error" }, "error"],
    ["say:api_req_retried → retry", { type: "say", text: "", ts: 2, say: "api_req_retried" }, "retry"],
    ["say:task_progress → plan.updated", { type: "say", text: "- [ ] a\n- [x] b", ts: 2, say: "task_progress" }, "plan.updated"],
    ["ask:resume_task → notice", { type: "ask", text: "", ts: 2, ask: "resume_task" }, "notice"],
    ["say:hook_status → notice", { type: "say", text: "{}", ts: 2, say: "hook_status" }, "notice"],
    ["ask:command → tool.started", { type: "ask", text: "ls", ts: 2, ask: "command" }, "tool.started"],
    [
      "say:subagent_usage → usage",
      {
        type: "say",
        text: '{"source":"subagents","tokensIn":5,"tokensOut":6,"cacheWrites":0,"cacheReads":0,"cost":0.1}',
        ts: 2,
        say: "subagent_usage",
      },
      "usage",
    ],
  ])("%s", (_name, record, type) => {
    const { events } = decode({ type: "say", text: "task", ts: 1, say: "text" }, record);
    expect(events.map((e) => e.type)).toContain(type);
    expect(events.filter((e) => e.type === "unknown")).toEqual([]);
  });

  it("an unknown say subtype is an unknown event and an issue", () => {
    const { events, issues } = decode({ type: "say", text: "", ts: 1, say: "never_heard_of_it" });
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.some((i) => i.code === "unknown-record")).toBe(true);
  });

  it("ts (epoch ms) becomes an RFC 3339 time", () => {
    const { events } = decode({ type: "say", text: "hi", ts: 1768847967916, say: "text" });
    expect(events[0]?.time).toBe("2026-01-19T18:39:27.916Z");
  });

  it("the first say:text of a task is the user's prompt; later ones are the assistant's", () => {
    const { events } = decode(
      { type: "say", text: "do it", ts: 1, say: "text" },
      { type: "say", text: '{"tokensIn":1,"tokensOut":1}', ts: 2, say: "api_req_started" },
      { type: "say", text: "done", ts: 3, say: "text" },
    );
    expect(ofType(events, "message.completed").map((m) => [m.role, m.text])).toEqual([
      ["user", "do it"],
      ["assistant", "done"],
    ]);
  });
});

describe("cline synthetic fixtures", () => {
  it("pretty-printed objects (json.MarshalIndent) frame under auto and read the same as single-line objects", () => {
    const pretty = readFile(fixturePath("cline", "pretty-printed-objects.txt"));
    const single = readFile(fixturePath("cline", "single-line-objects.ndjson"));
    expect(pretty.dialect).toBe("cline");
    expect(pretty.summary.records.invalid).toBe(0);
    const strip = (events: AgentEvent[]) => events.map((e) => ({ ...e, source: undefined }));
    expect(strip(pretty.events)).toEqual(strip(single.events));
    expect(pretty.summary.finalText).toBe("There are two files: a.txt and b.txt. {braces} inside a string do not end the object");
    expect(pretty.summary.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 80,
      cacheReadTokens: 0,
      cacheWriteTokens: 100,
      reasoningTokens: null,
    });
    expect(pretty.summary.costUsd).toBeCloseTo(0.0042, 10);
  });

  it("a command is paired with the command_output records that follow it", () => {
    const { events, summary } = readFile(fixturePath("cline", "command-then-output.ndjson"));
    const started = ofType(events, "tool.started");
    expect(started.map((t) => t.input)).toEqual([{ command: "npm test" }, { command: "git status" }]);
    expect(ofType(events, "tool.progress").map((p) => p.output)).toEqual(["> vitest run", "Tests  3 passed (3)"]);
    const done = ofType(events, "tool.completed");
    expect(done[0]).toMatchObject({ toolCallId: started[0]?.toolCallId, output: "> vitest run\nTests  3 passed (3)", isError: false });
    expect(summary.toolCalls).toEqual([
      { id: "cline-tool-1", name: "execute_command", status: "success" },
      { id: "cline-tool-2", name: "execute_command", status: "success" },
    ]);
    expect(summary.status).toBe("success");
    expect(summary.finalText).toBe("All 3 tests pass.");
    expect(summary.usage.inputTokens).toBe(1200);
    expect(summary.costUsd).toBeCloseTo(0.003, 10);
    expect(ofType(events, "session.completed")).toHaveLength(1); // ask:completion_result with empty text is a notice
  });

  it("tools: readFile, edits with file.changed, MCP with its response, task_progress as a plan", () => {
    const { events, summary } = readFile(fixturePath("cline", "tools-read-and-edit.ndjson"));
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["readFile", "success"],
      ["editedExistingFile", "success"],
      ["newFileCreated", "success"],
      ["create_issue", "success"],
    ]);
    const kinds = ofType(events, "tool.started").map((t) => t.kind);
    expect(kinds).toEqual(["file_read", "file_edit", "file_write", "mcp"]);
    expect(ofType(events, "tool.started")[3]).toMatchObject({ server: "github", input: { title: "typo" } });
    expect(ofType(events, "tool.completed")[3]?.output).toBe("issue #7 created");
    expect(ofType(events, "file.changed").map((f) => f.changes[0])).toEqual([
      { path: "README.md", kind: "update", diff: "------- SEARCH\nteh\n=======\nthe\n+++++++ REPLACE" },
      { path: "NOTES.md", kind: "add", diff: "# Notes\n" },
    ]);
    expect(ofType(events, "plan.updated")[0]?.items).toEqual([
      { text: "read README", status: "completed" },
      { text: "fix typo", status: "completed" },
      { text: "open issue", status: "pending" },
    ]);
  });

  it("api_req_started re-printed with the same ts is not counted twice", () => {
    const { events, summary } = readFile(fixturePath("cline", "api-req-updated-in-place.ndjson"));
    expect(summary.usage.inputTokens).toBe(100);
    expect(summary.usage.outputTokens).toBe(25);
    expect(summary.costUsd).toBeCloseTo(0.015, 10);
    expect(ofType(events, "turn.started")).toHaveLength(1);
  });

  it("partial snapshots share the ts of the final message (same messageId)", () => {
    // Without the repair stage: the decoder passes each snapshot on as Cline printed it.
    const { events } = readAll([readFileSync(fixturePath("cline", "partial-snapshots.ndjson"))], { dialect: "cline", repair: false });
    const text = ofType(events, "message.completed").find((m) => m.messageId === "text-1760000004300");
    expect(text?.text).toBe("Hello there");
    expect(
      ofType(events, "message.delta")
        .filter((d) => d.messageId === "text-1760000004300")
        .map((d) => d.text),
    ).toEqual(["Hel", "Hello"]);
    expect(ofType(events, "message.completed").find((m) => m.messageId === "reasoning-1760000004200")?.text).toBe("Thinking about it");
    // A followup question is assistant text; its options are a notice.
    expect(ofType(events, "message.completed").at(-1)?.text).toBe("Which language?");
    expect(ofType(events, "notice").find((n) => n.kind === "options")?.details).toEqual({ options: ["English", "French"] });
  });

  it("TS CLI: task_started gives the session id; {type:error} ends the session with an error", () => {
    const { events, summary, issues } = readFile(fixturePath("cline", "ts-cli-task-started-and-error.ndjson"));
    expect(summary.sessionId).toBe("1760000005000");
    expect(summary.status).toBe("error");
    expect(summary.error).toBe("task failed: API request failed");
    expect(ofType(events, "error").map((e) => [e.scope, e.code])).toEqual([
      ["api", "streaming_failed"],
      ["api", "api_req_failed"],
      ["session", undefined],
    ]);
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.filter((i) => i.code === "unknown-record")).toHaveLength(1);
  });
});

describeDialect(cline, { describe, it, expect }, { sample: readFileSync(fixturePath("cline", "command-then-output.ndjson"), "utf8") });

describe.skipIf(!hasShared)("cline capture: oneshot_sample-cline-activity_cli-1.0.9.jsonl", () => {
  const result = hasShared ? readFile(sharedPath("fixtures", "cline", "oneshot_sample-cline-activity_cli-1.0.9.jsonl")) : undefined;
  it("is detected as cline, with no unknown events", () => {
    expect(result?.dialect).toBe("cline");
    expect(result?.events.filter((e) => e.type === "unknown")).toEqual([]);
  });
  it("two tasks (worker, auditor): two sessions, each completed by its completion_result", () => {
    const events = result?.events ?? [];
    expect(ofType(events, "session.started")).toHaveLength(2);
    expect(ofType(events, "session.completed").map((s) => s.finalText)).toEqual([
      "The task has been completed. The capital of China is Beijing.",
      `{"verdict": "DONE", "reason": "Valid JSON response with clear completion indicators: 'The task has been completed' and 'completion_result', correctly answering the capital of China as Beijing."}`,
    ]);
  });
  it("summary: the last task's result, usage summed over the four API requests, cost 0, no tool calls", () => {
    const s = result?.summary;
    expect(s?.status).toBe("success");
    expect(s?.finalText?.startsWith('{"verdict": "DONE"')).toBe(true);
    expect(s?.toolCalls).toEqual([]);
    // tokensIn 14039 + 14633 + 3181 + 345; tokensOut 295 + 264 + 257 + 271; cacheReads 512 + 512 + 11584 + 14976.
    expect(s?.usage).toEqual({
      inputTokens: 32198,
      outputTokens: 1087,
      cacheReadTokens: 27584,
      cacheWriteTokens: 0,
      reasoningTokens: null,
    });
    expect(s?.costUsd).toBe(0);
    expect(s?.turns).toBe(4);
    expect(s?.error).toBeNull();
  });
  it("plan_mode_respond carries the response text; reasoning is reasoning; prompts are the user's", () => {
    const done = ofType(result?.events ?? [], "message.completed");
    expect(done.filter((m) => m.kind === "reasoning")).toHaveLength(4);
    expect(done.filter((m) => m.role === "user").map((m) => m.text.split("\n")[0])).toEqual(["oneshot execution", "oneshot auditor"]);
    const plan = done.find((m) => m.messageId === "plan_mode_respond-1768847971710");
    expect(plan?.text.startsWith('{\n  "status": "DONE",\n  "result": "Beijing"')).toBe(true);
  });
});
