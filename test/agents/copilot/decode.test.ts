import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copilot } from "../../../src/agents/copilot/decode.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const NAMES = ["text", "tool-call", "thinking", "api-error-http"];
const output = (name: string) => fixturePath("copilot", `${name}.ndjson`);
const session = (name: string) => fixturePath("copilot-session", `${name}.jsonl`);

describe("copilot: detection", () => {
  it.each([
    [
      "session.start",
      {
        type: "session.start",
        data: { producer: "copilot-agent", sessionId: "s" },
        id: "e1",
        timestamp: "2026-01-01T00:00:00Z",
        parentId: null,
      },
      true,
    ],
    [
      "an output event",
      {
        type: "session.mcp_servers_loaded",
        ephemeral: true,
        data: { servers: [] },
        id: "e2",
        timestamp: "2026-01-01T00:00:00Z",
        parentId: "e1",
      },
      true,
    ],
    ["a Codex exec event (no data, no parentId)", { type: "item.completed", item: { id: "i", type: "agent_message", text: "hi" } }, false],
    ["an OpenCode event", { type: "step_start", timestamp: 1, sessionID: "s", part: {} }, false],
  ])("%s", (_name, value, expected) => {
    expect(copilot.detect(jsonRecord(value))).toBe(expected);
  });

  it.each(NAMES)("the registry picks copilot for the output and the session file of %s", (name) => {
    expect(readFile(output(name), { dialect: "auto" }).dialect).toBe("copilot");
    expect(readFile(session(name), { dialect: "auto" }).dialect).toBe("copilot");
  });
});

describe("copilot: Copilot CLI 1.0.102 output and session files of our offline runs", () => {
  it.each(NAMES.flatMap((name) => [output(name), session(name)]))("%s: valid events, no unknown, no issue", (path) => {
    const { events, issues } = readFile(path, { dialect: "auto" });
    expect(issues).toEqual([]);
    expect(ofType(events, "unknown")).toEqual([]);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events)).toEqual([]);
    expect(ofType(events, "session.completed")).toHaveLength(1);
  });

  it("tool call: the same conversation from the output and from the session file; tokens from the session file only", () => {
    for (const path of [output("tool-call"), session("tool-call")]) {
      const { events, summary } = readFile(path, { dialect: "auto" });
      expect(ofType(events, "message.completed").map((m) => [m.role, m.text])).toEqual([
        ["user", "Follow the scripted scenario."],
        ["assistant", "Let me look."],
        ["assistant", "The command printed scripted-output."],
      ]);
      expect(ofType(events, "tool.started").map((t) => [t.toolCallId, t.name, t.kind])).toEqual([["call_scripted_0_0", "bash", "command"]]);
      expect(ofType(events, "tool.completed").map((t) => [t.isError, t.output])).toEqual([
        [false, expect.stringContaining("scripted-output")],
      ]);
      expect(ofType(events, "turn.completed")).toHaveLength(2);
      expect(summary.status).toBe("success");
    }
    // The session file's usage records: 100 + 10, then 250 (200 cached) + 40, as the server reported.
    expect(readFile(session("tool-call")).summary.usage).toMatchObject({ inputTokens: 350, outputTokens: 50, cacheReadTokens: 200 });
    expect(readFile(output("tool-call")).summary.usage.inputTokens).toBeNull();
  });

  it("the output streams the call's arguments and the shell's output", () => {
    const { events } = readFile(output("tool-call"));
    expect(
      ofType(events, "tool.input.delta")
        .map((d) => d.text)
        .join(""),
    ).toBe('{"command":"echo scripted-output"}');
    expect(ofType(events, "tool.progress").map((p) => p.output)).toEqual(["scripted-output\n"]);
  });

  it("thinking: one reasoning message, streamed then completed, apart from the answer", () => {
    for (const path of [output("thinking"), session("thinking")]) {
      const done = ofType(readFile(path).events, "message.completed").filter((m) => m.role === "assistant");
      expect(done.map((m) => [m.kind, m.text])).toEqual([
        ["reasoning", "The user wants a short greeting."],
        ["text", "Hi there."],
      ]);
    }
  });

  it("API error: session.error is an error and the session ends in error", () => {
    for (const path of [output("api-error-http"), session("api-error-http")]) {
      const { events, summary } = readFile(path);
      expect(ofType(events, "error").map((e) => [e.message, e.code])).toEqual([["400 scripted bad request", "query"]]);
      expect(summary.status).toBe("error");
    }
  });

  it("assistant.usage (the SDK's per-request event) gives the tokens of an output, once per request when both kinds come", () => {
    const at = "2026-12-02T02:18:09.000Z";
    const usage = { model: "gpt-4.1", inputTokens: 120, outputTokens: 12, cacheReadTokens: 20, cacheWriteTokens: 0 };
    const lines = [
      { type: "assistant.usage", data: usage, id: "u1", timestamp: at, parentId: null, ephemeral: true },
      { type: "session.usage_record", data: { usage: { ...usage, apiCallId: "x" } }, id: "u2", timestamp: at, parentId: "u1" },
    ];
    const text = `${readFileSync(output("text"), "utf8")}${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
    const { summary } = readAll([text], { dialect: copilot });
    expect(summary.usage).toMatchObject({ inputTokens: 120, outputTokens: 12, cacheReadTokens: 20 });
  });

  it("a resumed session (session.resume after session.shutdown in the same file) is one session, ended by its last shutdown", () => {
    const lines = readFileSync(session("text"), "utf8").trim().split("\n");
    const at = (s: number) => `2026-12-02T03:00:0${s}.000Z`;
    const more = [
      { type: "session.resume", data: { resumeTime: at(0) }, id: "r1", timestamp: at(0), parentId: null },
      { type: "user.message", data: { content: "Again.", messageId: "m2" }, id: "r2", timestamp: at(1), parentId: "r1" },
      {
        type: "assistant.message",
        data: { messageId: "a2", content: "Once more.", toolRequests: [] },
        id: "r3",
        timestamp: at(2),
        parentId: "r2",
      },
      { type: "session.shutdown", data: {}, id: "r4", timestamp: at(3), parentId: "r3" },
    ];
    const text = [...lines, ...more.map((line) => JSON.stringify(line))].join("\n");
    const { events, issues } = readAll([`${text}\n`], { dialect: copilot });
    expect(issues).toEqual([]);
    expect(checkSequence(events)).toEqual([]);
    const completed = ofType(events, "session.completed");
    expect(completed.map((event) => [event.status, event.time])).toEqual([["success", at(3)]]);
    expect(ofType(events, "message.completed").map((m) => m.text)).toContain("Once more.");
  });

  it("an event type it does not know is an unknown record, said once", () => {
    const line = { type: "assistant.new_thing", data: {}, id: "x", timestamp: "2026-12-02T02:18:09.000Z", parentId: null };
    const { events, issues } = readAll([`${readFileSync(session("text"), "utf8")}${JSON.stringify(line)}\n`], { dialect: copilot });
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.map((issue) => issue.code)).toEqual(["unknown-record"]);
  });
});

describeDialect(copilot, { describe, it, expect }, { sample: readFileSync(session("tool-call"), "utf8") });
