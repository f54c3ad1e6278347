import { formatCost } from "../../render/_format.ts";
import { sanitizeForTerminal } from "../../render/_sanitize.ts";
import { createSummaryBuilder, type SessionSummary, type SummaryBuilder } from "../../summary/summarize.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../command.ts";
import { describeRedactions, readInputs, readingStatus, readingOptions, readingOptionsHelp, type ReadingValues } from "../_input.ts";
import type { RedactionCounts } from "../../redact/redact-text.ts";

export const summary: Command = {
  name: "summary",
  summary: "one session's facts: agent, model, status, final text, tool calls, usage, cost",
  help: `Usage: agentstream summary [--json] [options] [file ...]

Prints what one session did. With several files, one summary per file (a JSON array with --json).
Fields the input does not carry are null, never invented.

Options:
  --json                   print JSON (the contract is in docs/cli.md)
${readingOptionsHelp}`,
  options: { ...readingOptions, json: { type: "boolean", default: false } },
  async run(values, files, io) {
    const builders = new Map<string, SummaryBuilder>();
    const builderFor = (input: string): SummaryBuilder => {
      let builder = builders.get(input);
      if (builder === undefined) builders.set(input, (builder = createSummaryBuilder()));
      return builder;
    };
    let currentInput = "";
    const runs = await readInputs(files, io, values as ReadingValues, {
      onEvent(event, input) {
        currentInput = input;
        builderFor(input).add(event);
      },
      onIssue(issue) {
        builderFor(issue.file ?? currentInput).addIssue(issue);
      },
    });
    // `redactions`: secrets replaced, by kind (docs/redaction.md); `{}` with --no-redact or none found.
    const summaries = runs.map((run) => ({ ...builderFor(run.name).result(run.reader.stats, run.reader.dialect, run.reader.health), redactions: run.reader.redactions }));
    if (values.json === true) {
      const body = summaries.length === 1 ? summaries[0] : summaries;
      await io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      await io.stdout.write(summaries.map((s, i) => formatSummary(s, runs[i]?.name ?? "")).join("\n"));
    }
    return readingStatus(runs, values as ReadingValues);
  },
};

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
