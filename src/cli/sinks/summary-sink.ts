/**
 * The summary sink: events → one summary builder per session of each input; at the end, the
 * summaries as text or as JSON (the `summary --json` contract in docs/cli.md).
 */
import { formatCost } from "../../views/shared/format.ts";
import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import { INPUT_START, type ReaderCounters, type SummaryWithRedactions, summarizeSession } from "../../pipeline/session-summary.ts";
import { createSummaryBuilder, type SummaryBuilder } from "../../summary/summarize.ts";
import { describeRedactions } from "../diagnostics.ts";
import type { CliOutput } from "../io.ts";
import type { InputRun, Sink } from "./sink.ts";

/** The session being read in one input, and how many of that input's sessions were already summarized. */
interface OpenSession {
  builder: SummaryBuilder;
  /** Where the session starts in its input: the input's counters at that point. */
  from: ReaderCounters;
  done: number;
}

/**
 * Each session is summarized as soon as it ends, and its builder let go, so memory stays flat however
 * many sessions one input holds. What can be printed at once is: text blocks, and the NDJSON lines of
 * a single input with several sessions; a JSON array over several inputs is printed at the end.
 */
export function createSummarySink(options: { readonly json: boolean; readonly inputs: number }, stdout: CliOutput): Sink {
  const open = new Map<string, OpenSession>();
  const held: SummaryWithRedactions[] = [];
  let printed = 0;
  let currentInput = "";
  const session = (input: string): OpenSession => {
    let found = open.get(input);
    if (found === undefined) {
      found = { builder: createSummaryBuilder(), from: INPUT_START, done: 0 };
      open.set(input, found);
    }
    return found;
  };
  const emit = (summary: SummaryWithRedactions, name: string): void => {
    if (options.json && options.inputs > 1) {
      held.push(summary);
      return;
    }
    const text = options.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary, name);
    void stdout.write(printed++ === 0 || options.json ? text : `\n${text}`);
  };
  /** The last session of what `run` read. */
  const finish = (run: InputRun): { summary: SummaryWithRedactions; done: number } => {
    const last = session(run.name);
    const to = { stats: run.reader.stats, health: run.reader.health, redactions: run.reader.redactions };
    return { summary: summarizeSession(last.builder, last.from, to, run.reader.dialect), done: last.done };
  };
  const restarted = new Map<InputRun, { summary: SummaryWithRedactions; done: number }>();
  return {
    event(event, input) {
      currentInput = input;
      session(input).builder.add(event);
    },
    issue(issue) {
      session(issue.file ?? currentInput).builder.addIssue(issue);
    },
    sessionBoundary(boundary, input) {
      // Concatenated sessions: each gets its own summary, with the counts of its own lines.
      const ended = session(input);
      const to = { stats: boundary.statsBefore, health: boundary.healthBefore, redactions: boundary.redactionsBefore };
      emit(summarizeSession(ended.builder, ended.from, to, boundary.previousDialect), input);
      open.set(input, { builder: createSummaryBuilder(), from: to, done: ended.done + 1 });
    },
    inputRestarted(run) {
      // A followed file truncated or replaced: what was read of it is summarized now (printed at the end).
      restarted.set(run, finish(run));
      open.delete(run.name);
    },
    async end(runs) {
      for (const run of runs) {
        const { summary, done } = restarted.get(run) ?? finish(run);
        // One input, one session: the pretty object, as always.
        if (options.json && options.inputs === 1 && runs.length === 1 && done === 0)
          await stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
        else emit(summary, run.name);
      }
      if (held.length > 0) await stdout.write(`${JSON.stringify(held, null, 2)}\n`);
    },
  };
}

function formatSummary(s: SummaryWithRedactions, name: string): string {
  const lines: string[] = [];
  const field = (label: string, value: unknown): void => {
    if (value !== null && value !== undefined && value !== "") lines.push(`${label.padEnd(13)}${String(value)}`);
  };
  field("input", name);
  field("dialect", s.dialect);
  field("agent", [s.agent, s.agentVersion].filter(Boolean).join(" "));
  field("model", s.model);
  field("session", s.sessionId);
  field("status", s.error ? `${s.status}: ${s.error}` : s.status);
  field("turns", s.turns);
  field("duration", s.durationMs === null ? null : `${(s.durationMs / 1000).toFixed(1)} s`);
  const u = s.usage;
  const tokens = [
    u.inputTokens !== null ? `${u.inputTokens} in` : "",
    u.outputTokens !== null ? `${u.outputTokens} out` : "",
    u.cacheReadTokens !== null ? `${u.cacheReadTokens} cache read` : "",
    u.cacheWriteTokens !== null ? `${u.cacheWriteTokens} cache write` : "",
    u.reasoningTokens !== null ? `${u.reasoningTokens} reasoning` : "",
  ].filter(Boolean);
  field("tokens", tokens.join(", "));
  field("cost", s.costUsd === null ? null : formatCost(s.costUsd, s.costEstimated));
  const errors = s.toolCalls.filter((t) => t.status === "error").length;
  field("tool calls", s.toolCalls.length === 0 ? null : `${s.toolCalls.length}${errors ? ` (${errors} failed)` : ""}`);
  const r = s.records;
  field(
    "records",
    `${r.total} lines: ${r.events} events, ${r.text} text, ${r.blank} blank, ${r.invalid} invalid, ${r.tooLong} too long, ${r.unknown} unknown`,
  );
  field("issues", s.issues.length || null);
  field("redactions", describeRedactions(s.redactions)?.replace(/^redacted /, "") ?? null);
  if (s.finalText !== null) lines.push("", s.finalText);
  // Agent text is untrusted: neutralise escape sequences before it reaches a terminal.
  return `${sanitizeForTerminal(lines.join("\n"))}\n`;
}
