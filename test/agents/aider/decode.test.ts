import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { aider } from "../../../src/agents/aider/decode.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

const decode = (text: string) => readAll([text], { dialect: "aider" });
const text = (t: string) => ({ kind: "text" as const, text: t, line: 1, offset: 0, length: t.length });

describe("aider detection", () => {
  it.each([
    ["Aider v0.86.1", true],
    ["> Aider v0.75.1", true],
    ["Applied edit to app.py", true],
    ["> Applied edit to app.py  ", true],
    ["Tokens: 1.2k sent, 345 received. Cost: $0.01 message, $0.05 session.", true],
    ["> $ aider app.py", true],
    ["# aider chat started at 2025-03-01 10:00:00", true],
    ["Main model: gpt-4o with diff edit format", true],
    ["Model: something", false],
    ["Reading additional input from stdin...", false],
    ["YOLO mode is enabled. All tool calls will be automatically approved.", false],
    ["Commit 414c394 message", false],
    ["<|start|>assistant", false],
  ])("%s → %s", (line, expected) => {
    expect(aider.detect(text(line))).toBe(expected);
  });
  it("never claims a JSON record", () => {
    expect(aider.detect({ kind: "json", value: { text: "Aider v1.0" }, line: 1, offset: 0, length: 1 })).toBe(false);
  });
});

describe("aider line shapes", () => {
  it.each([
    [
      "Tokens: 345 sent, 12 received.",
      { inputTokens: 345, outputTokens: 12, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
    ],
    [
      "Tokens: 1.2k sent, 345 received.",
      { inputTokens: 1200, outputTokens: 345, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
    ],
    [
      "Tokens: 12k sent, 2.0k cache write, 8.5k cache hit, 1.1k received.",
      { inputTokens: 12000, outputTokens: 1100, cacheReadTokens: 8500, cacheWriteTokens: 2000, reasoningTokens: null },
    ],
    [
      "Tokens: 1.5M sent, 3 received.",
      { inputTokens: 1500000, outputTokens: 3, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
    ],
  ])("%s", (line, usage) => {
    const { events } = decode(`Aider v0.80.0\n${line}\n`);
    expect(ofType(events, "usage")[0]?.usage).toEqual(usage);
  });

  it("the session cost is cumulative: the summary cost is Aider's last session figure", () => {
    const { summary, events } = decode(
      "Aider v0.80.0\nTokens: 1k sent, 1 received. Cost: $0.01 message, $0.01 session.\nTokens: 1k sent, 1 received. Cost: $0.02 message, $0.03 session.\nTokens: 1k sent, 1 received. Cost: $0.01 message, $0.04 session.\n",
    );
    expect(summary.costUsd).toBeCloseTo(0.04, 10);
    expect(ofType(events, "usage").map((u) => u.costUsd)).toEqual([0.01, 0.02, 0.01]);
    expect(ofType(events, "metric").map((m) => m.values)).toEqual([
      { messageUsd: 0.01, sessionUsd: 0.01 },
      { messageUsd: 0.02, sessionUsd: 0.03 },
      { messageUsd: 0.01, sessionUsd: 0.04 },
    ]);
  });

  it("a second banner (a new run in the same log) restarts the session cost", () => {
    const { summary } = decode(
      "Aider v0.80.0\nTokens: 1k sent, 1 received. Cost: $0.05 message, $0.05 session.\nAider v0.80.0\nTokens: 1k sent, 1 received. Cost: $0.02 message, $0.02 session.\n",
    );
    expect(summary.costUsd).toBeCloseTo(0.07, 10);
  });

  it("lines before any Aider marker are kept as text events", () => {
    const { events } = decode("some shell noise\nAider v0.80.0\nhello\n");
    expect(ofType(events, "text")[0]).toMatchObject({ text: "some shell noise", position: "preamble" });
    expect(ofType(events, "message.completed")[0]).toMatchObject({ role: "assistant", text: "hello" });
  });
});

describe("aider synthetic fixtures", () => {
  it("stdout-banner-edit-commit-tokens: banner, SEARCH/REPLACE edits, commits, usage and cost", () => {
    const { events, summary } = readFile(fixturePath("aider", "stdout-banner-edit-commit-tokens.txt"));
    expect(summary.dialect).toBe("aider");
    expect(summary.agent).toBe("aider");
    expect(summary.agentVersion).toBe("0.86.1");
    expect(summary.model).toBe("anthropic/claude-sonnet-4-20250514");
    expect(ofType(events, "session.started")[0]?.details).toEqual({
      editFormat: "diff",
      weakModel: "anthropic/claude-3-5-haiku-20241022",
      gitRepo: ".git with 3 files",
      repoMap: "using 4096 tokens, auto refresh",
    });
    expect(summary.usage).toEqual({
      inputTokens: 14500,
      outputTokens: 165,
      cacheReadTokens: 3000,
      cacheWriteTokens: 1100,
      reasoningTokens: null,
    });
    expect(summary.costUsd).toBeCloseTo(0.0593, 10);
    expect(summary.status).toBe("incomplete"); // Aider prints no end marker
    expect(ofType(events, "file.changed").map((f) => [f.changes[0]?.path, f.status])).toEqual([
      ["greet.py", "success"],
      ["test_greet.py", "success"],
    ]);
    expect(ofType(events, "file.changed")[0]?.changes[0]?.diff).toBe(
      '<<<<<<< SEARCH\n=======\ndef greet(name):\n    return f"Hello, {name}!"\n>>>>>>> REPLACE',
    );
    expect(
      ofType(events, "notice")
        .filter((n) => n.kind === "commit")
        .map((n) => n.details),
    ).toEqual([
      { hash: "1a2b3c4", message: "feat: Add greet function" },
      { hash: "5d6e7f8", message: "test: Add greet test" },
    ]);
    expect(summary.finalText?.startsWith("Now the test.\n\ntest_greet.py\n```python")).toBe(true);
  });

  it("tokens-without-cost: a local model, no cost figure", () => {
    const { summary } = readFile(fixturePath("aider", "tokens-without-cost.txt"));
    expect(summary.costUsd).toBeNull();
    expect(summary.usage.inputTokens).toBe(980);
    expect(summary.model).toBe("ollama_chat/qwen2.5-coder:7b");
    expect(summary.finalText).toBe("Done.");
  });

  it("chat-history-md: `#### ` user lines, `> ` output lines, a failed edit", () => {
    const { events, summary } = readFile(fixturePath("aider", "chat-history-md.txt"));
    expect(ofType(events, "session.started")).toHaveLength(1);
    expect(ofType(events, "session.started")[0]).toMatchObject({
      agentVersion: "0.75.1",
      model: "gpt-4o",
      details: { chatStartedAt: "2025-03-01 10:00:00", command: "/usr/local/bin/aider --model gpt-4o" },
    });
    expect(ofType(events, "message.completed").map((m) => [m.role, m.text.split("\n")[0]])).toEqual([
      ["user", "rename foo to bar"],
      ["assistant", "I will rename it."],
    ]);
    expect(ofType(events, "file.changed").map((f) => [f.changes[0]?.path, f.status])).toEqual([
      ["src/app.py", "success"],
      ["src/other.py", "error"],
    ]);
    expect(ofType(events, "error")[0]?.message).toBe("Failed to apply edit to src/other.py");
    expect(summary.costUsd).toBeCloseTo(0.0045, 10);
  });
});

describeDialect(aider, { describe, it, expect }, { sample: readFileSync(fixturePath("aider", "tokens-without-cost.txt"), "utf8") });

describe.skipIf(!hasShared)("aider capture: aider-website_hello-world-flask.md.txt", () => {
  const result = hasShared ? readFile(sharedPath("fixtures", "aider", "aider-website_hello-world-flask.md.txt")) : undefined;
  const events = result?.events ?? [];
  it("is detected as aider from its text, with no unknown events", () => {
    expect(result?.dialect).toBe("aider");
    expect(ofType(events, "unknown")).toEqual([]);
  });
  it("the website page is read as a transcript: front matter and HTML wrapper are dropped, the title and introduction are info notices", () => {
    expect(ofType(events, "text")).toEqual([]);
    expect(
      ofType(events, "notice")
        .filter((n) => n.kind === "page")
        .map((n) => n.text),
    ).toEqual([
      "Create a simple flask app with aider",
      "In this chat transcript, the user asks to make a simple flask app with various endpoints.",
    ]);
  });
  it("four user requests, four assistant replies, four applied edits to app.py, four commits", () => {
    const done = ofType(events, "message.completed");
    expect(done.filter((m) => m.role === "user").map((m) => m.text)).toEqual([
      "make a flask app with a /hello endpoint that returns hello world",
      "add an endpoint like /add/3/5 which returns the sum of the 2 numbers",
      "add /fibonacci/X",
      "remove the hello endpoint",
    ]);
    expect(done.filter((m) => m.role === "assistant")).toHaveLength(4);
    expect(ofType(events, "file.changed").map((f) => [f.changes[0]?.path, f.status])).toEqual(Array(4).fill(["app.py", "success"]));
    expect(
      ofType(events, "notice")
        .filter((n) => n.kind === "commit")
        .map((n) => (n.details as { hash: string }).hash),
    ).toEqual(["414c394", "0872c51", "163fba8", "eab6620"]);
  });
  it("the 2023 ORIGINAL/UPDATED block (with its empty ORIGINAL line) becomes the first diff", () => {
    const diff = ofType(events, "file.changed")[0]?.changes[0]?.diff ?? "";
    expect(diff.startsWith("<<<<<<< ORIGINAL\n\n=======\nfrom flask import Flask\n\napp = Flask(__name__)")).toBe(true);
    expect(diff.endsWith("    app.run()\n>>>>>>> UPDATED")).toBe(true);
  });
  it("summary: last reply as final text, no tools, no usage or cost (the transcript has no Tokens lines), incomplete", () => {
    const s = result?.summary;
    expect(s?.agent).toBe("aider");
    expect(s?.agentVersion).toBeNull();
    expect(s?.finalText?.startsWith("To remove the `/hello` endpoint, you can simply delete the corresponding route")).toBe(true);
    expect(s?.finalText?.endsWith("Now, the `/hello` endpoint has been removed from the Flask app.")).toBe(true);
    expect(s?.toolCalls).toEqual([]);
    expect(s?.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(s?.costUsd).toBeNull();
    expect(s?.status).toBe("incomplete");
  });
});
