/**
 * The terminal view, event by event: the append-only streaming contract in each mode, verbosity
 * rules (exactly one truncation line), the footer, subagent indentation, final answers, metrics,
 * status lines, and speed on 100k tiny deltas.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft } from "../../../src/model/events.ts";
import { formatCost, formatCount, formatDuration, formatMetric, formatUsage, keyArgument } from "../../../src/views/shared/format.ts";
import { createTerminalRenderer, type RendererOptions } from "../../../src/views/terminal/create-terminal-renderer.ts";
import { createScreen, plain } from "./_emulator.ts";
import { displayWidth } from "../../../src/views/shared/width.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";

function stamp(drafts: AgentEventDraft[]): AgentEvent[] {
  return drafts.map((d, seq) => ({ ...d, v: 1, seq }) as AgentEvent);
}

/** Renders and returns each write, and the output of each `render` call (one entry per event, then `end`). */
function render(drafts: AgentEventDraft[], options: Omit<RendererOptions, "write"> = {}) {
  const writes: string[] = [];
  const perEvent: string[] = [];
  const renderer = createTerminalRenderer({ ...options, write: (t) => writes.push(t) });
  for (const event of stamp(drafts)) {
    const before = writes.length;
    renderer.render(event);
    perEvent.push(writes.slice(before).join(""));
  }
  const before = writes.length;
  renderer.end();
  perEvent.push(writes.slice(before).join(""));
  const output = writes.join("");
  return { writes, perEvent, output, text: plain(output) };
}

const start = (id = "s", extra: Partial<AgentEventDraft> = {}): AgentEventDraft =>
  ({
    type: "session.started",
    sessionId: id,
    agent: "claude-code",
    agentVersion: "2.1.0",
    model: "sonnet",
    cwd: "/repo",
    ...extra,
  }) as AgentEventDraft;
const msg = (id: string, text: string, kind: "text" | "reasoning" = "text", sessionId = "s"): AgentEventDraft[] => [
  { type: "message.started", messageId: id, role: "assistant", kind, sessionId },
  { type: "message.completed", messageId: id, role: "assistant", kind, text, sessionId },
];
const deltas = (id: string, pieces: string[], kind: "text" | "reasoning" = "text", sessionId = "s"): AgentEventDraft[] => {
  let position = 0;
  const out: AgentEventDraft[] = [{ type: "message.started", messageId: id, role: "assistant", kind, sessionId }];
  for (const text of pieces) {
    out.push({ type: "message.delta", role: "assistant", kind: "text", messageId: id, text, position, sessionId });
    position += text.length;
  }
  out.push({ type: "message.completed", messageId: id, role: "assistant", kind, text: pieces.join(""), sessionId });
  return out;
};
const tool = (
  id: string,
  name: string,
  input: AgentEventDraft extends never ? never : unknown,
  output: string,
  isError = false,
  extra: Record<string, unknown> = {},
): AgentEventDraft[] => [
  { type: "tool.started", toolCallId: id, name, kind: "command", input, sessionId: "s" } as AgentEventDraft,
  { type: "tool.completed", toolCallId: id, output, isError, sessionId: "s", ...extra } as AgentEventDraft,
];

describe("the append-only streaming contract", () => {
  const stream = deltas("m", ["Hello", " wor", "ld", "!"]);

  it("full: the first delta prints the marker and its text, later deltas only their suffix, completion one newline", () => {
    const { perEvent } = render(stream, { mode: "full" });
    expect(plain(perEvent[0] as string)).toBe(""); // message.started prints nothing
    expect(plain(perEvent[1] as string)).toBe("● Hello");
    expect(plain(perEvent[2] as string)).toBe(" wor");
    expect(plain(perEvent[3] as string)).toBe("ld");
    expect(plain(perEvent[4] as string)).toBe("!");
    expect(plain(perEvent[5] as string)).toBe("\n");
    for (const piece of perEvent) expect(piece).not.toMatch(/\r|\x1b\[\d*[ABCDEFGHJKfsu]/);
  });

  it("full: every write is self-contained (a style left open by a delta is closed in the same write)", () => {
    const { writes } = render(stream, { mode: "full" });
    for (const write of writes)
      if (write.includes("\x1b[")) expect(write.endsWith("\x1b[0m") || write.endsWith("\x1b[0m\n") || write.endsWith("\n")).toBe(true);
  });

  it.each(["basic", "none"] as const)("%s: nothing per delta, one write for the whole block", (mode) => {
    const { perEvent, writes, text } = render(stream, { mode });
    expect(perEvent.slice(0, 4).every((p) => p === "")).toBe(true);
    expect(writes).toHaveLength(1);
    expect(text).toBe("● Hello world!\n");
  });

  it("the same text in every mode; none has no escape sequence, basic has colour but no dim or italic", () => {
    const events = [
      start(),
      ...deltas("r", ["think", "ing"], "reasoning"),
      ...deltas("m", ["an", "swer"]),
      {
        type: "metric",
        name: "flame",
        values: { temperature: 0.65, k: 0.013, state: "sync", reflex_score: 0.72 },
        sessionId: "s",
      } as AgentEventDraft,
    ];
    const full = render(events, { mode: "full" });
    const basic = render(events, { mode: "basic" });
    const none = render(events, { mode: "none" });
    expect(basic.text).toBe(full.text);
    expect(none.output).toBe(full.text);
    expect(none.output).not.toContain("\x1b");
    expect(basic.output).not.toMatch(/\x1b\[(?:[0-9;]*;)?[23](?:;[0-9;]*)?m/);
    expect(full.output).toMatch(/\x1b\[2;36m/); // reasoning dimmed cyan
    expect(full.output).toMatch(/\x1b\[2;3m/); // metric italic (and grey)
  });

  it("an interrupted message resumes on a new line with its marker, and its text is never repeated", () => {
    const { text } = render([
      { type: "message.started", messageId: "a", role: "assistant", kind: "text" },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "a", text: "first part", position: 0 },
      { type: "tool.started", toolCallId: "t", name: "Bash", input: { command: "ls" } },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "a", text: " second part", position: 10 },
      { type: "message.completed", messageId: "a", role: "assistant", kind: "text", text: "first part second part" },
    ]);
    expect(text).toBe("● first part\n\n→ Bash  ls\n\n●  second part\n");
  });

  it("the completed text adds what the deltas did not send, and never repeats what they did", () => {
    const { text } = render([
      { type: "message.started", messageId: "a", role: "assistant", kind: "text" },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "a", text: "Hel", position: 0 },
      { type: "message.completed", messageId: "a", role: "assistant", kind: "text", text: "Hello" },
    ]);
    expect(text).toBe("● Hello\n");
  });

  it("newlines in streamed text: hanging indent, no leading blank lines, at most one blank line, no trailing spaces", () => {
    const { text } = render(deltas("m", ["\n\nline one\n", "\n\n\nline two\n", "   indented\n\n"]));
    expect(text).toBe("● line one\n\n  line two\n     indented\n");
  });

  it("notes that arrive while a message streams wait for its line to end", () => {
    const { text } = render([
      { type: "message.started", messageId: "a", role: "assistant", kind: "text" },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "a", text: "streaming", position: 0 },
      { type: "metric", name: "tokens", values: { n: 3 } },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "a", text: " on", position: 9 },
      { type: "message.completed", messageId: "a", role: "assistant", kind: "text", text: "streaming on" },
    ]);
    expect(text).toBe("● streaming on\ntokens (n=3)\n");
  });
});

describe("speed: 100k tiny deltas", () => {
  const many = 100_000;
  const events = (): AgentEvent[] => {
    const out: AgentEventDraft[] = [{ type: "message.started", messageId: "m", role: "assistant", kind: "text" }];
    for (let i = 0; i < many; i++)
      out.push({ type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: i % 50 === 49 ? "x\n" : "x", position: i });
    out.push({ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "" });
    return stamp(out);
  };

  it.each(["none", "basic", "full"] as const)("mode %s: basic/none write once (speed is measured by npm run bench)", (mode) => {
    const list = events();
    let writes = 0;
    let length = 0;
    const renderer = createTerminalRenderer({
      mode,
      write: (t) => {
        writes++;
        length += t.length;
      },
    });
    for (const e of list) renderer.render(e);
    renderer.end();
    if (mode !== "full") expect(writes).toBe(1);
    expect(length).toBeGreaterThan(many);
  });
});

describe("verbosity", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `output line ${i + 1}`).join("\n");
  const events = [start(), ...tool("t", "Bash", { command: "make test" }, lines), ...msg("m", "done")];

  it("normal: the call in one line, the output cut with exactly one line saying how much was hidden", () => {
    const { text } = render(events, { width: 80 });
    expect(text).toContain("→ Bash  make test\n");
    expect(text.match(/… .*hidden.*/g)).toEqual(["… 22 more lines hidden (-v shows more, --full all)"]);
    expect(text).toContain("│ output line 1\n");
    expect(text).toContain("│ output line 4\n");
    expect(text).not.toContain("output line 5\n");
    expect(text).toContain("│ output line 27\n");
    expect(text).toContain("│ output line 30\n");
  });

  it("long lines are cut to the width; the same one line says so", () => {
    const { text } = render([...tool("t", "Bash", { command: "cat" }, `${"y".repeat(300)}\nshort`)], { width: 40 });
    expect(text.match(/…/g)?.length).toBe(2); // the cut line's end and the summary
    expect(text).toContain("  │ … 1 long line cut\n"); // the hint does not fit 40 columns: left out rather than wrapped
    expect(render([...tool("t", "Bash", { command: "cat" }, `${"y".repeat(300)}\nshort`)], { width: 80 }).text).toContain(
      "… 1 long line cut (-v shows more, --full all)",
    );
  });

  it("quiet: no output, no reasoning; the call, the answer and the footer", () => {
    const { text } = render(
      [...events, ...msg("r", "hmm", "reasoning"), { type: "session.completed", status: "success", sessionId: "s" }],
      { verbosity: "quiet" },
    );
    expect(text).toContain("→ Bash  make test");
    expect(text).not.toContain("output line");
    expect(text).not.toContain("hmm");
    expect(text).toContain("● done");
    expect(text).toContain("✓ done");
  });

  it("verbose shows more (20 + 20), full shows everything and no summary", () => {
    const long = Array.from({ length: 100 }, (_, i) => `l${i}`).join("\n");
    const verbose = render(tool("t", "Bash", { command: "x" }, long), { verbosity: "verbose" }).text;
    expect(verbose.match(/… .*hidden.*/g)).toEqual(["… 60 more lines hidden (--full shows all)"]);
    const full = render(tool("t", "Bash", { command: "x" }, long), { verbosity: "full" }).text;
    expect(full).not.toContain("hidden");
    expect(full).toContain("│ l50\n");
  });

  it("a failing tool shows its output and exit status, even in quiet (status only)", () => {
    const failing = tool("t", "Bash", { command: "npm test" }, "FAIL x", true, { exitCode: 1, durationMs: 1200 });
    expect(render(failing).text).toBe("→ Bash  npm test\n  │ FAIL x\n  ✗ exit 1 · 1.2s\n");
    expect(render(failing, { verbosity: "quiet" }).text).toBe("→ Bash  npm test\n  ✗ exit 1 · 1.2s\n");
  });

  it("unknown records and repairs are visible in -v only; --debug prints each event as JSON", () => {
    const extra: AgentEventDraft[] = [
      { type: "unknown", raw: { type: "mystery", n: 1 }, reason: 'unknown record type "mystery"' },
      { type: "repair", kind: "duplicate-delta", messageId: "m", removedChars: 12, message: "the same delta twice in a row" },
    ];
    expect(render(extra).text).toBe("");
    const verbose = render(extra, { verbosity: "verbose" }).text;
    expect(verbose).toContain('? unknown record: unknown record type "mystery"');
    expect(verbose).toContain('│ {"type":"mystery","n":1}');
    expect(verbose).toContain("⚕ repair duplicate-delta: the same delta twice in a row (12 chars removed)");
    const debug = render(extra, { verbosity: "debug" }).text.split("\n");
    expect(debug[0]).toBe(
      '#0 unknown {"type":"unknown","raw":{"type":"mystery","n":1},"reason":"unknown record type \\"mystery\\"","v":1,"seq":0}',
    );
    expect(debug[1]).toMatch(/^#1 repair \{/);
  });

  it("a line that is not an event is shown as it is, sanitised, at the left edge", () => {
    expect(render([{ type: "text", text: "Loaded 3 MCP servers \x1b]0;x\x07", position: "preamble" }]).text).toBe(
      "Loaded 3 MCP servers ␛]0;x␇\n",
    );
  });

  it("successful edits and todo writes do not repeat their boilerplate output in normal verbosity", () => {
    const events: AgentEventDraft[] = [
      { type: "tool.started", toolCallId: "e", name: "Edit", kind: "file_edit", input: { file_path: "/repo/src/a.ts" }, sessionId: "s" },
      { type: "tool.completed", toolCallId: "e", output: "The file /repo/src/a.ts has been updated.", isError: false, sessionId: "s" },
      {
        type: "file.changed",
        toolCallId: "e",
        changes: [{ path: "/repo/src/a.ts", kind: "update", diff: "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new" }],
        sessionId: "s",
      },
    ];
    const { text } = render([start(), ...events]);
    expect(text).toContain("→ Edit  src/a.ts\n  ✎ update src/a.ts +1 −1\n    │ @@ -1 +1 @@\n    │ -old\n    │ +new\n");
    expect(text).not.toContain("has been updated");
  });
});

describe("what the view shows", () => {
  it("formats flame metrics as the Witness Forge spec says, and any other metric generically", () => {
    expect(formatMetric("flame", "Flame state", { k: 0.013, state: "sync", temperature: 0.65, reflex_score: 0.72 })).toBe(
      "Effective Temperature: 0.650 (state=sync, k=0.013, reflex=0.720)",
    );
    expect(formatMetric("flame", undefined, { temperature: 0.5, k: 0.1 })).toBe("Effective Temperature: 0.500 (k=0.100)");
    expect(formatMetric("flame", undefined, { temperature: 0.5, state: "drift", brain: "path1" })).toBe(
      "Effective Temperature: 0.500 (state=drift, brain=path1)",
    );
    expect(formatMetric("thinking_tokens", "~156 thinking tokens", { estimated_tokens: 156, ratio: 0.5 })).toBe(
      "thinking_tokens: ~156 thinking tokens (estimated_tokens=156, ratio=0.500)",
    );
    expect(formatMetric("message_delta", "stop", { usage: { output_tokens: 96 }, note: "two words", list: [1, 2] })).toBe(
      'message_delta: stop (usage.output_tokens=96, note="two words", list=[1,2])',
    );
    expect(formatMetric("context_window", undefined, {})).toBe("context_window");
  });

  it("metrics are never dropped, at any verbosity, and are italic", () => {
    const metric: AgentEventDraft = {
      type: "metric",
      name: "flame",
      text: "Flame state",
      values: { k: 0.013, state: "sync", temperature: 0.65, reflex_score: 0.72 },
    };
    for (const verbosity of ["quiet", "normal", "verbose", "full"] as const)
      expect(render([metric], { verbosity }).text).toBe("Effective Temperature: 0.650 (state=sync, k=0.013, reflex=0.720)\n");
    expect(render([metric], { mode: "full" }).output).toBe(
      "\x1b[2;3mEffective Temperature: 0.650 (state=sync, k=0.013, reflex=0.720)\x1b[0m\n",
    );
  });

  it("the final answer is green and bold, never cut, and not repeated when the agent already said it", () => {
    const answer = `${"A long answer. ".repeat(700)}The end.`;
    const shown = render([start(), { type: "session.completed", status: "success", finalText: answer, sessionId: "s" }], { mode: "full" });
    expect(shown.text.replace(/\n {2}/g, " ")).toContain(answer);
    expect(shown.output).toContain("\x1b[1;32mA long answer.");
    const said = render([
      start(),
      ...msg("m", "It is 4."),
      { type: "session.completed", status: "success", finalText: "It is 4.", sessionId: "s" },
    ]).text;
    expect(said.match(/It is 4\./g)).toHaveLength(1);
    // Several answers run together as the result (Cursor): still shown once.
    const joined = render([
      start(),
      ...msg("a", "I'll run it."),
      ...tool("t", "Bash", { command: "x" }, ""),
      ...msg("b", "complete"),
      { type: "session.completed", status: "success", finalText: "I'll run it.complete", sessionId: "s" },
    ]).text;
    expect(joined.match(/complete/g)).toHaveLength(1);
  });

  it("the footer: status, duration, turns, tokens and cost; the error of a failed session below it", () => {
    const usage = { inputTokens: 33, outputTokens: 399, cacheReadTokens: 64006, cacheWriteTokens: 2940, reasoningTokens: null };
    const done: AgentEventDraft = { type: "session.completed", status: "success", durationMs: 18734, turns: 4, usage, costUsd: 0.0421 };
    expect(render([done], { width: 120 }).text).toBe(
      "✓ done · 18.7s · 4 turns · tokens 33 in · 399 out · cache 64.0k read, 2.9k write · $0.0421\n",
    );
    // Narrower than that line: the token counts move to a second line rather than wrap mid-phrase.
    expect(render([done], { width: 80 }).text).toBe(
      "✓ done · 18.7s · 4 turns · $0.0421\n  tokens 33 in · 399 out · cache 64.0k read, 2.9k write\n",
    );
    expect(render([{ type: "session.completed", status: "error", error: "API Error: 429\nrate limited", turns: 1 }]).text).toBe(
      "✗ failed · 1 turn\n  API Error: 429\n  rate limited\n",
    );
    expect(render([{ type: "session.completed", status: "interrupted" }]).text).toBe("◼ interrupted\n");
    // Without totals at the end, the last cumulative usage stands in.
    expect(
      render([
        { type: "usage", scope: "cumulative", usage: { ...usage, cacheReadTokens: null, cacheWriteTokens: null } },
        { type: "session.completed", status: "success" },
      ]).text,
    ).toBe("✓ done · tokens 33 in · 399 out\n");
  });

  it("formats durations, counts and cost compactly", () => {
    expect([formatDuration(850), formatDuration(18734), formatDuration(125_000), formatDuration(3_720_000)]).toEqual([
      "850ms",
      "18.7s",
      "2m 05s",
      "1h 02m",
    ]);
    expect([formatCount(399), formatCount(2940), formatCount(1_250_000)]).toEqual(["399", "2.9k", "1.25M"]);
    expect([formatCost(0.0421), formatCost(12.5)]).toEqual(["$0.0421", "$12.50"]);
    expect(formatUsage({ inputTokens: null, outputTokens: 5, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: 7 })).toBe(
      "tokens 5 out · 7 reasoning",
    );
  });

  it("the key argument of a tool call: the command, the path (relative to the session), the query, the task", () => {
    expect(keyArgument({ command: "npm test", description: "Run tests" })).toBe("npm test");
    expect(keyArgument({ command: ["bash", "-lc", "ls -la"] })).toBe("ls -la");
    expect(keyArgument({ command: '/bin/bash -lc "sed -n \'1,2p\' \\"a b\\""' })).toBe("sed -n '1,2p' \"a b\"");
    expect(keyArgument({ file_path: "/repo/src/a.ts" }, "/repo")).toBe("src/a.ts");
    expect(keyArgument({ pattern: "TODO", path: "/repo/src" }, "/repo")).toBe("TODO in src");
    expect(keyArgument({ pattern: "needle", path: "/repo" }, "/repo")).toBe("needle in .");
    expect(keyArgument({ query: "vitest docs" })).toBe("vitest docs");
    expect(keyArgument({ description: "Find the bug", prompt: "long...", subagent_type: "Explore" }, undefined, "subagent")).toBe(
      "Find the bug (Explore)",
    );
    expect(keyArgument({ todos: [{}, {}] })).toBe("2 items");
    expect(keyArgument({ changes: { "/repo/a.ts": {}, "/repo/b.ts": {} } }, "/repo")).toBe("a.ts, b.ts");
  });

  it("streamed tool arguments: the call line waits for them and shows the key argument", () => {
    const { text } = render([
      { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command" },
      { type: "tool.input.delta", toolCallId: "t", text: '{"command": "npx vit' },
      { type: "tool.input.delta", toolCallId: "t", text: 'est run"}' },
      { type: "tool.completed", toolCallId: "t", output: "ok", isError: false },
    ]);
    expect(text).toBe("→ Bash  npx vitest run\n  │ ok\n");
  });

  it("parallel calls: a result that does not follow its call names the call again", () => {
    const { text } = render([
      { type: "tool.started", toolCallId: "a", name: "Read", input: { file_path: "a.ts" } },
      { type: "tool.started", toolCallId: "b", name: "Read", input: { file_path: "b.ts" } },
      { type: "tool.completed", toolCallId: "a", output: "A", isError: false },
      { type: "tool.completed", toolCallId: "b", output: "B", isError: false },
    ]);
    expect(text).toBe("→ Read  a.ts\n→ Read  b.ts\n↳ Read  a.ts\n  │ A\n↳ Read  b.ts\n  │ B\n");
  });

  it("subagent output is indented under its parent, two columns per level", () => {
    const { text } = render([
      start("root"),
      { type: "tool.started", toolCallId: "t1", name: "Task", kind: "subagent", input: { description: "Explore" }, sessionId: "root" },
      { type: "session.started", sessionId: "child", parentSessionId: "root", parentToolCallId: "t1", agent: "claude-code" },
      ...msg("c1", "child says", "text", "child"),
      { type: "session.started", sessionId: "grandchild", parentSessionId: "child", parentToolCallId: "t2" },
      ...msg("g1", "grandchild says\nsecond line", "text", "grandchild"),
      { type: "session.completed", sessionId: "grandchild", status: "success", durationMs: 1000 },
      { type: "session.completed", sessionId: "child", status: "success" },
      { type: "tool.completed", toolCallId: "t1", output: "summary", isError: false, sessionId: "root" },
      ...msg("r1", "root says", "text", "root"),
      { type: "session.completed", sessionId: "root", status: "success" },
    ]);
    expect(text).toBe(
      [
        "◆ claude-code 2.1.0 · sonnet · /repo",
        "",
        "→ Task  Explore",
        "  ◇ subagent · claude-code",
        "  ● child says",
        "    ◇ subagent",
        "    ● grandchild says",
        "      second line",
        "    ✓ subagent done · 1.0s",
        "  ✓ subagent done",
        "",
        "↳ Task  Explore",
        "  │ summary",
        "",
        "● root says",
        "",
        "✓ done",
        "",
      ].join("\n"),
    );
  });

  it("heartbeats and rate-limit waits are status lines: one per run, never a rewrite, never inside a streaming line", () => {
    const { text } = render([
      { type: "heartbeat", idleMs: 5000 },
      { type: "heartbeat", idleMs: 10000 },
      { type: "heartbeat", idleMs: 31000 },
      { type: "heartbeat", idleMs: 32000 },
      { type: "rate_limit", status: "rejected", limit: "five_hour", resetsAt: "2026-11-18T11:06:40.000Z" },
      { type: "retry", attempt: 2, maxAttempts: 5, delayMs: 30000, error: "overloaded" },
      { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "working", position: 0 },
      { type: "heartbeat", idleMs: 5000 },
      { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "working" },
    ]);
    expect(text).toBe(
      [
        "◷ still working · idle 5.0s",
        "◷ still working · idle 31.0s",
        "◷ rate limited (rejected) · five_hour · resets 2026-11-18 11:06 UTC",
        "↻ retry 2/5 in 30.0s: overloaded",
        "● working",
        "",
      ].join("\n"),
    );
  });

  it("mode full: heartbeats redraw one live status line with the running tool, erased before the next output and never left on screen", async () => {
    const { writes, perEvent } = render(
      [
        start(),
        { type: "tool.started", toolCallId: "t1", name: "Bash", kind: "command", input: { command: "npm test" } },
        { type: "heartbeat", idleMs: 15000 },
        { type: "heartbeat", idleMs: 45000 },
        { type: "tool.completed", toolCallId: "t1", name: "Bash", output: "ok", isError: false },
        { type: "heartbeat", idleMs: 15000 },
      ],
      { mode: "full", width: 60 },
    );
    // Each heartbeat redraws the row in place: carriage return, erase line, no newline.
    expect(perEvent[2]).toMatch(/^\r\x1b\[2K.*◷ working… 15\.0s · Bash running/);
    expect(perEvent[3]).toMatch(/^\r\x1b\[2K.*◷ working… 45\.0s · Bash running/);
    expect(perEvent[3]).not.toContain("\n");
    // The next real output erases it first; the end erases the last one.
    expect(perEvent[4]?.startsWith("\r\x1b[2K")).toBe(true);
    expect(perEvent[5]).not.toContain("Bash running");
    expect(perEvent[6]?.startsWith("\r\x1b[2K")).toBe(true);
    const screen = createScreen(60);
    for (const w of writes) await screen.write(w);
    const rows = screen.rows().join("\n");
    screen.dispose();
    expect(rows).not.toContain("working…");
    expect(rows).toContain("ok");
  });

  it("the agent's stderr lines (notice kind stderr) are shown dimmed in normal verbosity, hidden with -q", () => {
    const events: AgentEventDraft[] = [
      { type: "notice", kind: "stderr", level: "info", text: "warning: \x1b]0;title\x07 deprecated flag" },
    ];
    const normal = render(events, { mode: "full" });
    expect(normal.text).toContain("warning: ");
    expect(normal.text).toContain("deprecated flag");
    expect(normal.output).toContain("\x1b[2m"); // dim
    expect(normal.output).not.toContain("\x1b]0;");
    expect(render(events, { verbosity: "quiet" }).text).toBe("");
  });

  it("errors are red; plans show their items; user prompts are cut in normal verbosity", () => {
    const full = render([{ type: "error", scope: "api", code: "overloaded_error", message: "Overloaded", fatal: true }], {
      mode: "full",
    }).output;
    expect(full).toBe("\x1b[1;31m✗ api error (overloaded_error): Overloaded\x1b[0m\n");
    const plan = render([
      {
        type: "plan.updated",
        items: [
          { text: "write tests", status: "completed" },
          { text: "fix bug", status: "in_progress" },
          { text: "ship", status: "pending" },
        ],
      },
      {
        type: "plan.updated",
        items: [
          { text: "write tests", status: "completed" },
          { text: "fix bug", status: "completed" },
          { text: "ship", status: "pending" },
        ],
      },
    ]).text;
    expect(plan).toBe("  ☑ write tests\n  ◐ fix bug\n  ☐ ship\n  ☑ fix bug\n");
    const prompt = Array.from({ length: 20 }, (_, i) => `p${i}`).join("\n");
    const user = render([{ type: "message.completed", messageId: "u", role: "user", kind: "text", text: prompt }]).text;
    expect(user).toBe(
      `› ${Array.from({ length: 8 }, (_, i) => `p${i}`).join("\n  ")}\n  … 12 more lines hidden (-v shows more, --full all)\n`,
    );
  });

  it("an error repeated by the failed turn and the failed session is shown once", () => {
    const { text } = render([
      { type: "error", scope: "api", message: "usage limit reached" },
      { type: "turn.completed", turnId: "t", status: "error", error: "usage limit reached" },
      { type: "session.completed", status: "error", error: "usage limit reached" },
    ]);
    expect(text).toBe("✗ api error: usage limit reached\n✗ turn failed\n✗ failed\n");
  });

  it("says when the stream ended before the session did", () => {
    expect(render([start(), ...msg("m", "partial")]).text).toMatch(/◌ the stream ended before the session did/);
  });

  it("a cut stream's end shows the totals it had", () => {
    const usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
    const { text } = render([start(), ...msg("m", "partial"), { type: "usage", scope: "delta", usage, sessionId: "s" }], { width: 200 });
    expect(text.trimEnd().split("\n").at(-1)).toBe(`◌ the stream ended before the session did (no result record) · ${formatUsage(usage)}`);
  });

  it("--links: http(s) URLs in text become OSC 8 links we build, the URL itself as the text (mode full only)", () => {
    const events = deltas("m", ["see https://exa", "mple.com/docs. And ", "javascript:alert(1)"]);
    const full = render(events, { mode: "full", links: true });
    expect(full.output).toContain("\x1b]8;;https://example.com/docs\x1b\\https://example.com/docs\x1b]8;;\x1b\\.");
    expect(full.text).toBe("● see https://example.com/docs. And javascript:alert(1)\n");
    expect(render(events, { mode: "none", links: true }).output).toBe(full.text);
    expect(render(events, { mode: "full" }).output).not.toContain("\x1b]8");
  });

  it("--keep-colors keeps SGR in tool output (reset at each line end); none drops it; other sequences stay visible", () => {
    const events = tool("t", "ls", { command: "ls --color" }, "\x1b[34mdir\x1b[0m \x1b[2Jfile\n\x1b[31mred");
    const kept = render(events, { mode: "full", keepColors: true });
    expect(kept.output).toContain("\x1b[34mdir\x1b[0m ␛[2Jfile");
    expect(kept.text).toContain("│ dir ␛[2Jfile\n");
    const none = render(events, { mode: "none", keepColors: true }).output;
    expect(none).toBe("→ ls  ls --color\n  │ dir ␛[2Jfile\n  │ red\n");
  });
});

describe("wrapping at width 40 in a real terminal emulator", () => {
  it("prose wraps at word boundaries to the width (wide characters count two), keeping its indent; no row is wider", async () => {
    const words = "The quick brown fox jumps over the lazy dog 🦊 and 日本語のテキスト too. ".repeat(6);
    const events = [
      start(),
      ...deltas("m", words.match(/.{1,7}/gsu) ?? []),
      ...tool("t", "Bash", { command: `echo ${"x".repeat(120)}` }, `${"z".repeat(130)}\nend`),
    ];
    for (const mode of ["full", "basic", "none"] as const) {
      const { writes, text } = render(events, { mode, width: 40 });
      const screen = createScreen(40);
      for (const w of writes) await screen.write(w);
      const expected = text.replace(/\n$/, "").split("\n");
      const rows = screen.rows();
      // We wrap, not the terminal: every line we write is one row, and the text is all there.
      expect(screen.logicalLines().length).toBe(text.split("\n").length);
      for (const row of expected) expect(displayWidth(row)).toBeLessThanOrEqual(40);
      expect(rows.slice(0, expected.length).map((r) => r.trimEnd())).toEqual(expected.map((r) => r.trimEnd()));
      const answer = expected.slice(2, expected.findIndex((r) => r.startsWith("→")) - 1).map((r) => r.replace(/^● /, "").trim());
      if (mode === "full") expect(answer.join("").replace(/\s+/g, "")).toBe(words.replace(/\s+/g, ""));
      else expect(answer.join(" ")).toBe(words.trim());
      if (mode !== "full")
        for (const row of answer) expect(words).toMatch(new RegExp(`(^| )${row.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( |$)`, "u")); // whole words only
      screen.dispose();
    }
  });
});

/** The agent's end as `agentstream run` reports it: an exit notice, then (no result record) the incomplete notice. */
const exitNotice = (code: number): AgentEventDraft => ({
  type: "notice",
  kind: "exit",
  level: "info",
  text: `the agent exited with code ${code}`,
  details: { exitCode: code, signal: null },
});
const incompleteNotice = (code: number): AgentEventDraft => ({
  type: "notice",
  kind: "incomplete",
  level: "warning",
  text: `the stream ended without the agent's final record: the agent exited with code ${code} before writing it`,
});

describe("how the agent and the session ended", () => {
  const done: AgentEventDraft = { type: "session.completed", status: "success", sessionId: "s" };

  it("a non-zero exit after a complete stream is shown, with -q too; exit 0 only with -v", () => {
    for (const verbosity of ["quiet", "normal"] as const) {
      const { text } = render([start(), ...msg("m", "hi"), done, exitNotice(3)], { verbosity });
      expect(text).toMatch(/✓ done\n✗ the agent exited with code 3\n$/);
    }
    expect(render([start(), done, exitNotice(0)]).text).not.toMatch(/exited/);
    expect(render([start(), done, exitNotice(0)], { verbosity: "verbose" }).text).toMatch(/· the agent exited with code 0/);
  });

  it("an incomplete stream is said once, with the exit that cut it", () => {
    for (const verbosity of ["quiet", "normal"] as const) {
      const { text } = render([start(), ...msg("m", "partial"), exitNotice(3), incompleteNotice(3)], { verbosity, width: 200 });
      expect(text.match(/the stream ended/g)).toHaveLength(1);
      expect(text.match(/exited with code 3/g)).toHaveLength(1);
      expect(text).toMatch(/⚠ the stream ended without the agent's final record: the agent exited with code 3 before writing it\n$/);
    }
  });

  it("after the incomplete notice, the end gives only the figures the stream had", () => {
    const usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
    const events = [start(), ...msg("m", "partial"), { type: "usage", scope: "delta", usage, sessionId: "s" } as AgentEventDraft];
    const { text } = render([...events, exitNotice(1), incompleteNotice(1)], { width: 200 });
    expect(text.match(/the stream ended/g)).toHaveLength(1);
    expect(text.trimEnd().split("\n").at(-1)).toBe(`◌ totals · ${formatUsage(usage)}`);
  });

  it("an exit held for an incomplete notice that does not come is still shown", () => {
    expect(render([start(), exitNotice(2)]).text).toMatch(/✗ the agent exited with code 2\n/);
  });

  describe.skipIf(!hasShared)("a saved session log (the ccviewer Claude session: no result record by nature)", () => {
    const file = hasShared
      ? readFile(sharedPath("fixtures/claude-session/ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"))
      : undefined;
    const endOf = (stillWritten: boolean): string => {
      const writes: string[] = [];
      const renderer = createTerminalRenderer({ width: 200, write: (t) => writes.push(t) });
      for (const event of file?.events ?? []) renderer.render(event);
      renderer.end({ stillWritten });
      return plain(writes.join("")).trimEnd().split("\n").at(-1) ?? "";
    };
    /** What `summary --json` knows of it, as the footer writes it. */
    const totals = (): string => {
      const summary = file?.summary;
      if (summary === undefined || summary.durationMs === null) throw new Error("no summary");
      const cost = summary.costUsd === null ? "" : ` · ${formatCost(summary.costUsd, summary.costEstimated)}`;
      return `${formatDuration(summary.durationMs)} · 1 turn · ${formatUsage(summary.usage)}${cost}`;
    };

    it("ends with its totals, the same as summary --json", () => {
      expect(file?.summary.durationMs).toBe(572_448);
      expect(endOf(false)).toBe(`■ ended · ${totals()}`);
    });

    it("is unfinished while its file is still written", () => {
      expect(endOf(true)).toBe(`◌ the stream ended before the session did (no result record) · ${totals()}`);
    });
  });
});
