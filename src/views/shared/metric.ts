/**
 * What a person gains from a metric, decided per metric: the terminal view and the text and
 * markdown transcripts all ask here. Agents' own diagnostics (Claude's `message_delta` stop
 * reasons and `thinking_tokens` estimates, Codex's `turn_timing`, Claude sessions'
 * `turn_duration`, Aider's per-message cost) are not worth a line each: an unusual stop reason is
 * said in words, timing and the thinking estimate go to the footer, the rest only with `-v`.
 * Any other metric (a Witness flame, a metric we do not know) is shown, as today, on its line.
 */
import { formatDuration, formatMetric } from "./format.ts";

/** A metric event's fields the decision needs. */
export interface MetricFields {
  readonly name: string;
  readonly text?: string | undefined;
  readonly values: Record<string, unknown>;
}

/** How a metric is shown: `line` now (`warning` when it reports a problem), `footer` facts folded for the end. */
export interface MetricView {
  /** The line for the given verbosity; `undefined` when the metric is not worth one. */
  readonly line?: string;
  /** The line reports something that went wrong (an answer cut short, a refusal). */
  readonly warning?: boolean;
  /** The agent's latest estimate of its thinking tokens. */
  readonly thinkingTokens?: number;
  /** Time one turn took. */
  readonly turnMs?: number;
}

/** Stop reasons that end an answer normally: nothing to say about them. */
const ORDINARY_STOPS = new Set(["end_turn", "tool_use", "stop_sequence", "pause_turn", "stop"]);

/** Unusual stop reasons, said in words. */
const STOP_WORDS: Record<string, string> = {
  max_tokens: "the answer was cut off: the model reached its output token limit",
  refusal: "the model refused to continue",
  model_context_window_exceeded: "the answer was cut off: the context window is full",
};

const number = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** Decides how metric `m` is shown; `verbose` is `-v` or more. */
export function viewMetric(m: MetricFields, verbose: boolean): MetricView {
  switch (m.name) {
    case "message_delta": {
      const reason = typeof m.values.stopReason === "string" ? m.values.stopReason : undefined;
      if (reason === undefined || ORDINARY_STOPS.has(reason)) return {};
      return { line: STOP_WORDS[reason] ?? `the model stopped: ${reason.replace(/_/g, " ")}`, warning: true };
    }
    case "thinking_tokens": {
      const estimate = number(m.values.estimated_tokens);
      return estimate === undefined ? {} : { thinkingTokens: estimate };
    }
    case "turn_timing":
    case "turn_duration": {
      const ms = number(m.values.duration_ms) ?? number(m.values.durationMs);
      const firstToken = number(m.values.time_to_first_token_ms);
      if (ms === undefined) return {};
      const line = verbose
        ? `turn took ${formatDuration(ms)}${firstToken !== undefined ? ` (first token after ${formatDuration(firstToken)})` : ""}`
        : undefined;
      return line === undefined ? { turnMs: ms } : { line, turnMs: ms };
    }
    case "cost":
      // Aider's own "Cost: $0.01 message, $0.03 session" line: the footer has the session's cost.
      return verbose && m.text !== undefined && m.text !== "" ? { line: m.text } : {};
    default:
      return { line: formatMetric(m.name, m.text, m.values) };
  }
}
