/**
 * The summary sink: events → one summary builder per session of each input; at the end, the
 * summaries as text or as JSON (the `summary --json` contract in docs/cli.md).
 */
import { formatCost } from "../../views/shared/format.ts";
import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import type { HealthStats, RecordStats } from "../../pipeline/create-event-reader.ts";
import { createSummaryBuilder, type SessionSummary, type SummaryBuilder } from "../../summary/summarize.ts";
import type { RedactionCounts } from "../../stages/redact/redact-text.ts";
import type { InputRun } from "../_input.ts";
import { describeRedactions } from "../diagnostics.ts";
import type { CliOutput } from "../io.ts";
import type { Sink } from "./sink.ts";

/** A summary, with the secrets replaced in its input by kind (`{}` with --no-redact or none found). */
type SummaryWithRedactions = SessionSummary & { redactions: RedactionCounts };

export function createSummarySink(options: { readonly json: boolean }, stdout: CliOutput): Sink {
  const segments = new Map<string, Segment[]>();
  const current = (input: string): Segment => {
    const list = segments.get(input) ?? [];
    if (!segments.has(input)) segments.set(input, list);
    const last = list.at(-1);
    if (last !== undefined) return last;
    const first: Segment = { builder: createSummaryBuilder(), from: undefined };
    list.push(first);
    return first;
  };
  let currentInput = "";
  return {
    event(event, input) {
      currentInput = input;
      current(input).builder.add(event);
    },
    issue(issue) {
      current(issue.file ?? currentInput).builder.addIssue(issue);
    },
    sessionBoundary(boundary, input) {
      // Concatenated sessions: each gets its own summary, with the counts of its own lines.
      const ended = current(input);
      ended.to = { stats: boundary.statsBefore, health: boundary.healthBefore, dialect: boundary.previousDialect };
      segments.get(input)?.push({ builder: createSummaryBuilder(), from: { stats: boundary.statsBefore, health: boundary.healthBefore } });
    },
    async end(runs) {
      const results: { summary: SummaryWithRedactions; name: string }[] = [];
      for (const run of runs) {
        current(run.name).to ??= { stats: run.reader.stats, health: run.reader.health, dialect: run.reader.dialect };
        for (const segment of segments.get(run.name) ?? [])
          results.push({ summary: { ...summarizeSegment(segment), redactions: run.reader.redactions }, name: run.name });
      }
      await stdout.write(
        options.json
          ? `${summariesAsJson(
              runs,
              results.map((r) => r.summary),
            )}\n`
          : results.map((r) => formatSummary(r.summary, r.name)).join("\n"),
      );
    },
  };
}

/** One input, one session: the object, as always. Several inputs: an array. Several sessions in one input: one per line (NDJSON). */
function summariesAsJson(runs: readonly InputRun[], summaries: readonly SummaryWithRedactions[]): string {
  if (runs.length > 1) return JSON.stringify(summaries, null, 2);
  if (summaries.length === 1) return JSON.stringify(summaries[0], null, 2);
  return summaries.map((s) => JSON.stringify(s)).join("\n");
}

/** One session of one input: its events, and the input's counters where it starts and ends. */
interface Segment {
  readonly builder: SummaryBuilder;
  readonly from: { readonly stats: RecordStats; readonly health: HealthStats } | undefined;
  to?: { readonly stats: RecordStats; readonly health: HealthStats; readonly dialect: string | undefined };
}

function summarizeSegment(segment: Segment): SessionSummary {
  const to = segment.to;
  // Every segment's end is set (at its boundary, or at its input's end) before it is summarized.
  if (to === undefined) throw new Error("a session summarized before its end was known");
  const from = segment.from;
  if (from === undefined) return segment.builder.result(to.stats, to.dialect, to.health);
  return segment.builder.result(difference(to.stats, from.stats), to.dialect, difference(to.health, from.health));
}

/** Counter by counter, `to - from`. */
function difference<T extends object>(to: T, from: T): T {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(to)) out[key] = (value as number) - ((from as Record<string, number>)[key] ?? 0);
  return out as T;
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
  field("cost", s.costUsd === null ? null : formatCost(s.costUsd));
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
