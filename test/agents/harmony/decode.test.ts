import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { harmony } from "../../../src/agents/harmony/decode.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

const decode = (text: string) => readAll([text], { dialect: "harmony", repair: false });
const messages = (events: AgentEvent[]) => ofType(events, "message.completed").map((m) => [m.role, m.kind, m.channel, m.text]);
const capture = (name: string) => readFile(sharedPath("fixtures", "harmony", name));

describe("harmony detection", () => {
  it.each([
    ["<|start|>assistant<|channel|>final<|message|>hi<|end|>", true],
    ["<|channel|>analysis<|message|>x", true],
    ["prefix <|message|>", true],
    ["200005 35644 200008 1844", true],
    ["1 2 3 4", false],
    ["Aider v0.86.1", false],
    ["Reading additional input from stdin...", false],
  ])("%s → %s", (text, expected) => {
    expect(harmony.detect({ kind: "text", text, line: 1, offset: 0, length: text.length })).toBe(expected);
  });
  it("never claims a JSON record", () => {
    expect(harmony.detect({ kind: "json", value: { text: "<|start|>" }, line: 1, offset: 0, length: 1 })).toBe(false);
  });
});

describe("harmony record shapes", () => {
  it.each([
    [
      "analysis → reasoning",
      "<|start|>assistant<|channel|>analysis<|message|>think<|end|>",
      [["assistant", "reasoning", "analysis", "think"]],
    ],
    ["final → text", "<|start|>assistant<|channel|>final<|message|>answer<|return|>", [["assistant", "text", "final", "answer"]]],
    [
      "commentary without recipient → text (preamble)",
      "<|start|>assistant<|channel|>commentary<|message|>I will look it up.<|end|>",
      [["assistant", "text", "commentary", "I will look it up."]],
    ],
    ["no channel → text", "<|start|>assistant<|message|>Hi<|end|>", [["assistant", "text", undefined, "Hi"]]],
    [
      "system / developer / user roles",
      "<|start|>system<|message|>s<|end|><|start|>developer<|message|>d<|end|><|start|>user<|message|>u<|end|>",
      [
        ["system", "text", undefined, "s"],
        ["developer", "text", undefined, "d"],
        ["user", "text", undefined, "u"],
      ],
    ],
    ["a completion without <|start|> is the assistant's", "<|channel|>final<|message|>x<|end|>", [["assistant", "text", "final", "x"]]],
  ])("%s", (_name, text, expected) => {
    expect(messages(decode(`${text}\n`).events)).toEqual(expected);
  });

  it("<|return|> after a final message is the model's stop: session.completed with the final text", () => {
    const { summary } = decode("<|start|>assistant<|channel|>final<|message|>done<|return|>\n");
    expect(summary.status).toBe("success");
    expect(summary.finalText).toBe("done");
  });

  it("recipient in the channel part with a content type word (`to=browser.search code`)", () => {
    const { events } = decode('<|start|>assistant<|channel|>commentary to=browser.search code<|message|>{"query":"x"}<|call|>\n');
    expect(ofType(events, "tool.started")[0]).toMatchObject({ name: "browser.search", kind: "web_search", input: { query: "x" } });
  });

  it("text is streamed per line as message.delta, line breaks re-inserted", () => {
    const { events } = decode("<|channel|>final<|message|>one\ntwo\nthree<|end|>\n");
    expect(ofType(events, "message.delta").map((d) => d.text)).toEqual(["one", "\ntwo", "\nthree"]);
  });
});

describe("harmony synthetic fixtures", () => {
  it("tool-call-and-response: the call and the functions.* response pair up", () => {
    const { events, summary } = readFile(fixturePath("harmony", "tool-call-and-response.txt"));
    expect(summary.dialect).toBe("harmony");
    expect(summary.toolCalls).toEqual([{ id: "harmony-call-1", name: "functions.get_weather", status: "success" }]);
    expect(ofType(events, "tool.started")[0]?.input).toEqual({ location: "Tokyo" });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({
      result: { temperature: 21, sky: "clear" },
      output: '{"temperature": 21, "sky": "clear"}',
      isError: false,
    });
    expect(summary.finalText).toBe("It is 21 °C and clear in Tokyo.");
    expect(summary.status).toBe("success");
  });

  it("multi-line-final-with-blank-line: the blank line inside the message is kept", () => {
    const { summary } = readFile(fixturePath("harmony", "multi-line-final-with-blank-line.txt"));
    expect(summary.finalText).toBe("First paragraph.\n\nSecond paragraph\ncontinues here.");
  });

  it("tag-split-across-lines: `<|chan` + `nel|>` is one tag", () => {
    const { events } = readFile(fixturePath("harmony", "tag-split-across-lines.txt"));
    expect(messages(events)).toEqual([["assistant", "text", "final", "Hello\n world"]]);
  });

  it("no-final-newline: a message with no end tag and no newline completes at the end of input", () => {
    const { events, summary } = readFile(fixturePath("harmony", "no-final-newline.txt"));
    expect(messages(events)).toEqual([["assistant", "text", "final", "no newline until the end"]]);
    expect(summary.status).toBe("incomplete");
  });

  it("witness-style-tags: `<|channel|>name` then text on the next line", () => {
    const { events } = readFile(fixturePath("harmony", "witness-style-tags.txt"));
    expect(messages(events)).toEqual([
      ["assistant", "reasoning", "analysis", "Thinking text"],
      ["assistant", "text", "final", "Answer text"],
    ]);
  });

  it("missing-message-token: non-strict `<|channel|>commentary Hello<|end|>`", () => {
    expect(messages(readFile(fixturePath("harmony", "missing-message-token.txt")).events)).toEqual([
      ["assistant", "text", "commentary", "Hello"],
    ]);
  });

  it("recipient-in-role: `<|start|>assistant to=functions.get_weather<|channel|>commentary<|constrain|>json`", () => {
    const { events, summary } = readFile(fixturePath("harmony", "recipient-in-role.txt"));
    expect(ofType(events, "tool.started")[0]).toMatchObject({ name: "functions.get_weather", input: { location: "Tokyo" } });
    // The input ends at <|call|>: the tool never answered.
    expect(summary.toolCalls).toEqual([{ id: "harmony-call-1", name: "functions.get_weather", status: "error" }]);
  });

  it("orphan-tool-response: a response with no call in the input is a notice", () => {
    const { events, summary } = readFile(fixturePath("harmony", "orphan-tool-response.txt"));
    expect(summary.toolCalls).toEqual([]);
    expect(ofType(events, "notice")[0]).toMatchObject({
      kind: "tool_response",
      text: '{"result": "none"}',
      details: { tool: "browser.search", recipient: "assistant", channel: "commentary" },
    });
  });

  it("token-ids: special tokens give the structure, known header words the channel, other tokens stay [id]", () => {
    const { events } = readFile(fixturePath("harmony", "token-ids.txt"));
    expect(messages(events)).toEqual([
      ["assistant", "reasoning", "analysis", "[111][222]"],
      ["assistant", "text", "final", "[333][444]"],
    ]);
    expect(ofType(events, "notice")[0]?.kind).toBe("harmony_tokens");
  });

  it("text-before-first-message: a loose line is a text event", () => {
    const { events } = readFile(fixturePath("harmony", "text-before-first-message.txt"));
    expect(ofType(events, "text")[0]).toMatchObject({ text: "loading model...", position: "preamble" });
  });

  it("chunk boundaries inside a tag read the same as whole", () => {
    const text = readFileSync(fixturePath("harmony", "tool-call-and-response.txt"), "utf8");
    const whole = readAll([text], { dialect: "harmony" }).events;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 3) chunks.push(text.slice(i, i + 3));
    expect(readAll(chunks, { dialect: "harmony" }).events).toEqual(whole);
  });
});

describeDialect(harmony, { describe, it, expect }, { sample: readFileSync(fixturePath("harmony", "tool-call-and-response.txt"), "utf8") });

describe.skipIf(!hasShared)("harmony captures (openai/harmony test-data)", () => {
  it("test_keep_analysis_between_finals.txt: a rendered conversation", () => {
    const { events, summary, dialect } = capture("test_keep_analysis_between_finals.txt");
    expect(dialect).toBe("harmony");
    expect(messages(events)).toEqual([
      ["user", "text", undefined, "What is 2 + 2?"],
      ["assistant", "text", "final", "4"],
      ["user", "text", undefined, "What is 3 + 5?"],
      ["assistant", "reasoning", "analysis", "thinking 3+5"],
      ["assistant", "text", "final", "8"],
    ]);
    expect(summary.finalText).toBe("8");
    expect(summary.toolCalls).toEqual([]);
    expect(summary.status).toBe("incomplete"); // no <|return|>: a rendered history, not a finished completion
  });

  it("test_streamable_parser.txt: analysis → browser.search call → its response (3 messages)", () => {
    const { events, summary } = capture("test_streamable_parser.txt");
    const reasoning = ofType(events, "message.completed");
    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]?.kind).toBe("reasoning");
    expect(reasoning[0]?.text.startsWith('User asks "Who is the current US president?"')).toBe(true);
    expect(reasoning[0]?.text).toContain("But w\ne need up to date info."); // the capture breaks the line inside a word
    expect(summary.toolCalls).toEqual([{ id: "harmony-call-1", name: "browser.search", status: "success" }]);
    expect(ofType(events, "tool.started")[0]).toMatchObject({
      kind: "web_search",
      input: { query: "current US president July 2025", topn: 10, source: "news" },
    });
    expect(ofType(events, "tool.completed")[0]?.result).toEqual({ result: "https://openai.com/" });
    expect(summary.finalText).toBeNull();
  });

  it("test_tool_response_parsing.txt: a lone tool response", () => {
    const { events, summary } = capture("test_tool_response_parsing.txt");
    expect(summary.toolCalls).toEqual([]);
    expect(ofType(events, "notice")[0]).toMatchObject({
      kind: "tool_response",
      details: { tool: "browser.search", recipient: "assistant", channel: "commentary" },
    });
    expect(ofType(events, "notice")[0]?.text.trim()).toBe('{"result": "https://openai.com/"}');
  });

  it("test_browser_and_function_tool.txt: system + developer prompt, then the open `<|start|>assistant`", () => {
    const { events, summary } = capture("test_browser_and_function_tool.txt");
    const done = ofType(events, "message.completed");
    expect(done.map((m) => m.role)).toEqual(["system", "developer"]);
    expect(
      done[0]?.text.startsWith(
        "You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2025-06-28\n\nReasoning: medium\n\n# Tools\n\n## browser",
      ),
    ).toBe(true);
    expect(done[0]?.text.endsWith("Calls to these tools must go to the commentary channel: 'functions'.")).toBe(true);
    expect(done[1]?.text).toContain("type lookup_weather = (_: {\nlocation: string,\n}) => any;");
    expect(ofType(events, "notice").at(-1)).toMatchObject({ kind: "harmony_header", text: "a message header with no content: assistant" });
    expect(summary.finalText).toBeNull();
  });

  it("test_simple_reasoning_response.txt: token ids → analysis then final (text tokens stay ids)", () => {
    const { events, summary } = capture("test_simple_reasoning_response.txt");
    expect(messages(events).map((m) => [m[1], m[2]])).toEqual([
      ["reasoning", "analysis"],
      ["text", "final"],
    ]);
    expect(summary.finalText).toBe("[17][659][220][17][314][220][19][13]");
  });

  it("test_simple_tool_call.txt: token ids → analysis then a tool call with an undecodable recipient", () => {
    const { events, summary } = capture("test_simple_tool_call.txt");
    expect(messages(events).map((m) => m[2])).toEqual(["analysis"]);
    expect(ofType(events, "tool.started")[0]).toMatchObject({ name: "[29712][170154]", input: "[10848][7693][1243][392][173844][18583]" });
    expect(summary.toolCalls.map((t) => t.status)).toEqual(["error"]); // the input ends before any response
  });
});
