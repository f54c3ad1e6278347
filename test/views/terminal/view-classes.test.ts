/**
 * What a person sees, one test per class of problem: the agents' diagnostics never reach the view
 * or the transcripts as raw lines; prose fits the width; tool calls read like what they did; the
 * footer has the tokens and cost the summary knows, costs rounded. Mechanically over every real
 * capture (../shared/fixtures) at widths 40, 80 and 120, and on small synthetic streams.
 */
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft } from "../../../src/model/events.ts";
import { NO_RESULT_OUTPUT } from "../../../src/model/events.ts";
import { diffStat, formatCost } from "../../../src/views/shared/format.ts";
import { displayWidth } from "../../../src/views/shared/width.ts";
import { createTerminalRenderer, type Verbosity } from "../../../src/views/terminal/create-terminal-renderer.ts";
import { run } from "../../../src/cli/run.ts";
import { convertEvents } from "../../helpers/convert.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { readFile } from "../../helpers/read.ts";
import { listCaptures, noteSharedMissing, repoRoot, sharedPath } from "../../helpers/shared.ts";

const WIDTHS = [40, 80, 120] as const;

/** Leftovers of diagnostics and raw objects a person should never read. */
const LEFTOVERS: [string, RegExp][] = [
  ["a stop reason", /stop_reason/],
  ["a message id", /messageId=/],
  ["a dumped list of objects", /=\[\{/],
  ["a subagent's <usage> tag", /<usage>/],
  ["float noise in a number", /\d\.\d*0{6,}\d/],
  ["a thinking-token metric line", /thinking_tokens/],
  ["a timing metric line", /turn_timing|turn_duration/],
];

function render(events: readonly (AgentEvent | AgentEventDraft)[], width: number, verbosity: Verbosity = "normal"): string {
  let out = "";
  const write = (text: string): void => {
    out += text;
  };
  const renderer = createTerminalRenderer({ write, width, verbosity });
  for (const [seq, e] of events.entries()) renderer.render({ v: 1, seq, ...e } as AgentEvent);
  renderer.end();
  return out;
}

function inputs(): [string, string][] {
  const out: [string, string][] = [["examples/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`]];
  for (const [dialect, path] of listCaptures()) out.push([`${dialect}/${relative(sharedPath("fixtures", dialect), path)}`, path]);
  return out;
}

noteSharedMissing();
describe("every capture, as a person reads it", () => {
  it.each(inputs())("%s: no diagnostic leftovers and no row wider than the terminal, at every width and verbosity", (_name, path) => {
    const { events } = readFile(path);
    for (const width of WIDTHS) {
      for (const verbosity of ["quiet", "normal", "verbose"] as const) {
        const text = render(events, width, verbosity);
        for (const [what, pattern] of LEFTOVERS)
          expect(pattern.test(text), `${what} at width ${width}, ${verbosity}:\n${text}`).toBe(false);
        const wide = text.split("\n").filter((row) => displayWidth(row) > width);
        expect(wide, `rows wider than ${width} (${verbosity})`).toEqual([]);
      }
    }
    for (const format of ["text", "markdown"]) {
      const transcript = convertEvents(events, format);
      for (const [what, pattern] of LEFTOVERS) expect(pattern.test(transcript), `${what} in --to ${format}`).toBe(false);
      expect(transcript).not.toMatch(/Metric:_? (message_delta|thinking_tokens|turn_timing|turn_duration)/);
    }
  });

  it("OpenCode: the footer shows the tokens and cost the turns reported, as `summary` does", () => {
    const { events, summary } = readFile(sharedPath("fixtures", "opencode", "takopi_opencode_stream_success.jsonl"));
    expect(summary.usage.inputTokens).toBe(22443);
    const footer = render(events, 120).trimEnd().split("\n").at(-1) ?? "";
    expect(footer).toBe("✓ done · 2 turns · tokens 22.4k in · 118 out · cache 21.4k read · $0.0010");
  });

  it("Codex: a command_execution shows as the shell command, named shell", () => {
    const { events } = readFile(sharedPath("fixtures", "codex", "md2okf_command_failed_exit2_then_success.jsonl"));
    const text = render(events, 120);
    expect(text).not.toContain("command_execution");
    expect(text).toMatch(/^→ shell {2}\S/m);
  });

  it("Cursor: a shell command shows its output (none here), never the JSON wrapper", () => {
    const { events } = readFile(sharedPath("fixtures", "cursor", "cursorhack_2026.01.28_direct_sleep_thinking_deltas.jsonl"));
    const text = render(events, 80);
    expect(text).toMatch(/→ shell {2}sleep 5\n/);
    expect(text).not.toMatch(/"success"|"interleavedOutput"|"workingDirectory"/);
  });

  it("Claude: a subagent's result shows its answer, not the agentId line and <usage> block", () => {
    const { events } = readFile(sharedPath("fixtures", "claude", "archistrator_success_with_subagent.jsonl"));
    const text = render(events, 80, "verbose");
    expect(text).not.toMatch(/<usage>|subagent_tokens|agentId:/);
    expect(text).toContain("✓ subagent done");
  });

  it("Aider: the website transcript is a transcript (no front matter or HTML lines), edits count code lines only", () => {
    const { events } = readFile(sharedPath("fixtures", "aider", "aider-website_hello-world-flask.md.txt"));
    const text = render(events, 80);
    expect(text).not.toMatch(/^(---|<div|<\/div>|parent: |nav_order: )/m);
    expect(text.startsWith("◆ aider")).toBe(true);
    expect(text).toContain("✎ update app.py +7 −0");
  });
});

describe("diagnostic metrics (synthetic)", () => {
  const stop = (reason: string): AgentEventDraft => ({
    type: "metric",
    name: "message_delta",
    text: `stop_reason: ${reason}`,
    values: { messageId: "m1", stopReason: reason, usage: { output_tokens: 9, iterations: [{ a: 1 }] } },
    sessionId: "s",
  });
  const start: AgentEventDraft = { type: "session.started", sessionId: "s", agent: "claude-code" };
  const done: AgentEventDraft = { type: "session.completed", status: "success", sessionId: "s" };

  it("an ordinary stop reason is not worth a line; an unusual one is said in words, in the view and the transcripts", () => {
    for (const verbosity of ["quiet", "normal"] as const)
      expect(render([start, stop("tool_use"), stop("end_turn"), done], 80, verbosity)).toBe("◆ claude-code\n\n✓ done\n");
    expect(render([start, stop("tool_use"), done], 80, "verbose")).not.toMatch(/stop|tool_use|m1/);
    expect(render([start, stop("max_tokens"), done], 80)).toContain("⚠ the answer was cut off: the model reached its output token limit");
    expect(render([start, stop("refusal"), done], 80, "quiet")).toContain("⚠ the model refused to continue");
    const events = [start, stop("tool_use"), stop("max_tokens"), done].map((e, seq) => ({ v: 1, seq, ...e }) as AgentEvent);
    expect(convertEvents(events, "text")).toContain("Warning: the answer was cut off");
    expect(convertEvents(events, "text")).not.toContain("Metric:");
    expect(convertEvents(events, "markdown")).toContain("> **Warning:** the answer was cut off");
  });

  it("a thinking-token estimate and turn timing go to the footer, not a line per update; -v says the timing in words", () => {
    const thinking = (n: number): AgentEventDraft => ({
      type: "metric",
      name: "thinking_tokens",
      text: `~${n} thinking tokens`,
      values: { estimated_tokens: n },
      sessionId: "s",
    });
    const timing: AgentEventDraft = {
      type: "metric",
      name: "turn_timing",
      text: "turn t1",
      values: { duration_ms: 11800, time_to_first_token_ms: 900 },
      sessionId: "s",
    };
    const events = [start, thinking(5), thinking(1200), timing, done];
    expect(render(events, 80)).toBe("◆ claude-code\n\n✓ done · 11.8s · ~1.2k thinking\n");
    expect(render(events, 80, "verbose")).toContain("turn took 11.8s (first token after 900ms)\n");
    const text = convertEvents(
      events.map((e, seq) => ({ v: 1, seq, ...e }) as AgentEvent),
      "text",
    );
    expect(text).toContain("Thinking: ~1200 tokens (estimated)\nDuration: 11.8s");
    expect(text).not.toContain("Metric:");
  });

  it("another metric is still shown, its nested lists counted rather than dumped", () => {
    const metric: AgentEventDraft = { type: "metric", name: "context", values: { usage: { iterations: [{ a: 1 }, { b: 2 }] } } };
    expect(render([metric], 80)).toBe("context (usage.iterations=2 items)\n");
  });
});

describe("tool calls and the footer (synthetic)", () => {
  it("a tool call the input ended on says no result, not failed, in the view and the transcripts", () => {
    const events: AgentEventDraft[] = [
      { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "sleep 100" } },
      { type: "tool.completed", toolCallId: "t", name: "Bash", isError: true, output: NO_RESULT_OUTPUT },
    ];
    expect(render(events, 80)).toBe("→ Bash  sleep 100\n  ◌ no result\n");
    const stamped = events.map((e, seq) => ({ v: 1, seq, ...e }) as AgentEvent);
    expect(convertEvents(stamped, "text")).toContain("Result Bash: no result");
    expect(convertEvents(stamped, "markdown")).toContain("**Result of `Bash`:** no result");
  });

  it("usage and cost carried by turn.completed reach the footer", () => {
    const events: AgentEventDraft[] = [
      {
        type: "turn.completed",
        turnId: "1",
        status: "success",
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        costUsd: 0.0271005,
      },
      {
        type: "turn.completed",
        turnId: "2",
        status: "success",
        usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        costUsd: 0.0271005,
      },
      { type: "session.completed", status: "success" },
    ];
    expect(render(events, 120)).toBe("✓ done · 2 turns · tokens 150 in · 25 out · $0.0542\n");
  });

  it("costs are rounded for people, never float noise", () => {
    expect(formatCost(0.054201000000000006)).toBe("$0.0542");
    expect(formatCost(1.234)).toBe("$1.23");
    expect(formatCost(0.000012345)).toBe("$0.000012");
    expect(formatCost(0)).toBe("$0.00");
  });

  it("Aider SEARCH/REPLACE blocks count the code lines, not the conflict markers", () => {
    expect(diffStat("<<<<<<< SEARCH\nold one\nold two\n=======\nnew one\n>>>>>>> REPLACE")).toEqual({ added: 1, removed: 2 });
    expect(diffStat("<<<<<<< ORIGINAL\n\n=======\nline\n>>>>>>> UPDATED")).toEqual({ added: 1, removed: 0 });
  });

  it("prose keeps its indent when it wraps, and a word wider than the row is broken", () => {
    const text = render(
      [
        {
          type: "message.completed",
          messageId: "m",
          role: "assistant",
          kind: "text",
          text: `List:\n    - an indented item that is long enough to wrap at forty columns\n${"x".repeat(50)}`,
        },
      ],
      40,
    );
    expect(text).toBe(
      `● List:\n      - an indented item that is long\n      enough to wrap at forty columns\n  ${"x".repeat(38)}\n  ${"x".repeat(12)}\n`,
    );
  });
});

describe("--help fits the terminal", () => {
  it.each(["", "render", "convert", "summary", "validate"])(
    "agentstream %s --help: reflowed at word boundaries to 80 columns, options under their column",
    async (command) => {
      const io = fakeIo();
      expect(await run(command === "" ? ["--help"] : [command, "--help"], io)).toBe(0);
      const rows = io.out().split("\n");
      expect(rows.filter((row) => displayWidth(row) > 80)).toEqual([]);
      // No word is cut in two: every word of the output is a word of the help text.
      const words = new Set(io.out().split(/\s+/));
      for (const row of rows) if (row.trim() !== "") expect(words.has(row.trim().split(/\s+/)[0] as string)).toBe(true);
      if (command === "render") expect(io.out()).toMatch(/^ {2}--mode <mode> {12}full \| basic \| none .*\n {27}\S/m);
    },
  );
});
