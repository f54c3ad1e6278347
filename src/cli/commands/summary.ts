import { formatCost } from "../../render/_format.ts";
import { sanitizeForTerminal } from "../../render/_sanitize.ts";
import type { HealthStats, RecordStats } from "../../pipeline/create-event-reader.ts";
import { createSummaryBuilder, type SessionSummary, type SummaryBuilder } from "../../summary/summarize.ts";
import type { Command } from "../command.ts";
import { describeRedactions, readInputs, readingStatus, readingOptions, readingOptionsHelp, type ReadingValues } from "../_input.ts";
import type { RedactionCounts } from "../../stages/redact/redact-text.ts";

export const summary: Command = {
  name: "summary",
  summary: "one session's facts: agent, model, status, final text, tool calls, usage, cost",
  help: `Usage: agentstream summary [--json] [options] [file ...]

Prints what one session did. With several files, one summary per file (a JSON array with --json).
When one input holds several sessions (\`cat a.jsonl b.jsonl | agentstream summary\`), one summary
per session (one JSON object per line with --json). Fields the input does not carry are null,
never invented.

Options:
  --json                   print JSON (the contract is in docs/cli.md)
${readingOptionsHelp}`,
  options: { ...readingOptions, json: { type: "boolean", default: false } },
  async run(values, files, io) {
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
    const runs = await readInputs(files, io, values as ReadingValues, {
      onEvent(event, input) {
        currentInput = input;
        current(input).builder.add(event);
      },
      onIssue(issue) {
        current(issue.file ?? currentInput).builder.addIssue(issue);
      },
      onSessionBoundary(boundary, input) {
        // Concatenated sessions: each gets its own summary, with the counts of its own lines.
        const ended = current(input);
        ended.to = { stats: boundary.statsBefore, health: boundary.healthBefore, dialect: boundary.previousDialect };
        segments.get(input)?.push({ builder: createSummaryBuilder(), from: { stats: boundary.statsBefore, health: boundary.healthBefore } });
      },
    });
    // `redactions`: secrets replaced in the input, by kind (docs/redaction.md); `{}` with --no-redact or none found.
    const results: { summary: SessionSummary & { redactions: RedactionCounts }; name: string }[] = [];
    for (const run of runs) {
      current(run.name).to ??= { stats: run.reader.stats, health: run.reader.health, dialect: run.reader.dialect };
      for (const segment of segments.get(run.name) ?? []) results.push({ summary: { ...summarizeSegment(segment), redactions: run.reader.redactions }, name: run.name });
    }
    if (values.json === true) {
      // One input, one session: the object, as always. Several sessions in one input: one per line (NDJSON).
      const text =
        runs.length > 1
          ? JSON.stringify(results.map((r) => r.summary), null, 2)
          : results.length === 1
            ? JSON.stringify(results[0]?.summary, null, 2)
            : results.map((r) => JSON.stringify(r.summary)).join("\n");
      await io.stdout.write(`${text}\n`);
    } else {
      await io.stdout.write(results.map((r) => formatSummary(r.summary, r.name)).join("\n"));
    }
    return readingStatus(runs, values as ReadingValues);
  },
};

/** One session of one input: its events, and the input's counters where it starts and ends. */
interface Segment {
  readonly builder: SummaryBuilder;
  readonly from: { readonly stats: RecordStats; readonly health: HealthStats } | undefined;
  to?: { readonly stats: RecordStats; readonly health: HealthStats; readonly dialect: string | undefined };
}

function summarizeSegment(segment: Segment): SessionSummary {
  const to = segment.to as NonNullable<Segment["to"]>;
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

function formatSummary(s: SessionSummary & { redactions: RedactionCounts }, name: string): string {
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
  field("records", `${r.total} lines: ${r.events} events, ${r.text} text, ${r.blank} blank, ${r.invalid} invalid, ${r.tooLong} too long, ${r.unknown} unknown`);
  field("issues", s.issues.length || null);
  field("redactions", describeRedactions(s.redactions)?.replace(/^redacted /, "") ?? null);
  if (s.finalText !== null) lines.push("", s.finalText);
  // Agent text is untrusted: neutralise escape sequences before it reaches a terminal.
  return `${sanitizeForTerminal(lines.join("\n"))}\n`;
}
