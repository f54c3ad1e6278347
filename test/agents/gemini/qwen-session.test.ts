import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { qwenSession } from "../../../src/agents/gemini/qwen-session.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const fixture = (name: string) => fixturePath("qwen-session", name);

describe("qwen-session: detection", () => {
  const first = JSON.parse(readFileSync(fixture("tool-call.jsonl"), "utf8").split("\n")[0] ?? "{}") as object;
  it.each([
    ["a Qwen chat line", jsonRecord(first), true],
    [
      "a Claude session line (content, no parts)",
      jsonRecord({
        sessionId: "s",
        type: "user",
        uuid: "u",
        parentUuid: null,
        timestamp: "2026-01-01T00:00:00Z",
        message: { role: "user", content: "hi" },
      }),
      false,
    ],
    ["a Qwen stream-json line", jsonRecord({ type: "system", subtype: "init", session_id: "s", qwen_code_version: "0.24.4" }), false],
  ])("%s", (_name, record, expected) => {
    expect(qwenSession.detect(record)).toBe(expected);
  });

  it("the registry picks qwen-session before claude-session for every fixture", () => {
    for (const name of ["text.jsonl", "tool-call.jsonl", "thinking.jsonl", "api-error-http.jsonl"]) {
      expect(readFile(fixture(name), { dialect: "auto" }).dialect, name).toBe("qwen-session");
    }
  });
});

describe("qwen-session: Qwen Code 0.24.4 chats of our offline runs", () => {
  it.each(["text.jsonl", "tool-call.jsonl", "thinking.jsonl", "api-error-http.jsonl"])("%s: valid events, no unknown, no issue", (name) => {
    const { events, issues } = readFile(fixture(name), { dialect: "auto" });
    expect(issues).toEqual([]);
    expect(ofType(events, "unknown")).toEqual([]);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events)).toEqual([]);
    expect(ofType(events, "session.started")[0]).toMatchObject({ agent: "qwen-code", agentVersion: "0.24.4", cwd: "/home/user/demo" });
  });

  it("tool call: the prompt, the call with its command, its output, the answer and the usage of both requests", () => {
    const { events, summary } = readFile(fixture("tool-call.jsonl"), { dialect: "auto" });
    const texts = ofType(events, "message.completed").map((m) => [m.role, m.kind, m.text]);
    expect(texts).toEqual([
      ["user", "text", "Follow the scripted scenario."],
      ["assistant", "text", "Let me look."],
      ["assistant", "text", "The command printed scripted-output."],
    ]);
    expect(ofType(events, "tool.started")).toMatchObject([
      { toolCallId: "call_scripted_0_0", name: "run_shell_command", kind: "command", input: { command: "echo scripted-output" } },
    ]);
    const done = ofType(events, "tool.completed");
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ toolCallId: "call_scripted_0_0", isError: false });
    expect(done[0]?.output).toContain("Output: scripted-output");
    // The server reported 100+10, then 250+40 with 200 cached: input includes the cached tokens (OpenAI style).
    expect(summary.usage).toMatchObject({ inputTokens: 350, outputTokens: 50, cacheReadTokens: 200 });
    expect(summary.finalText).toBe("The command printed scripted-output.");
  });

  it("thinking: a `thought: true` part is a reasoning message apart from the answer", () => {
    const { events } = readFile(fixture("thinking.jsonl"), { dialect: "auto" });
    const done = ofType(events, "message.completed").filter((m) => m.role === "assistant");
    expect(done.map((m) => [m.kind, m.text])).toEqual([
      ["reasoning", "The user wants a short greeting."],
      ["text", "Hi there."],
    ]);
  });

  it("API error: the telemetry line `qwen-code.api_error` is an error with the API's message", () => {
    const { events } = readFile(fixture("api-error-http.jsonl"), { dialect: "auto" });
    expect(ofType(events, "error").map((e) => e.message)).toEqual(["400 scripted bad request"]);
  });

  it("a line written twice (a resumed chat) counts its usage once", () => {
    const lines = readFileSync(fixture("text.jsonl"), "utf8").trim().split("\n");
    const twice = [...lines, lines.find((line) => line.includes('"usageMetadata"')) ?? ""].join("\n");
    const { summary } = readAll([`${twice}\n`], { dialect: qwenSession });
    expect(summary.usage).toMatchObject({ inputTokens: 100, outputTokens: 10 });
  });
});

describeDialect(qwenSession, { describe, it, expect }, { sample: readFileSync(fixture("tool-call.jsonl"), "utf8") });
