/**
 * What a person sees, computed once and shown by every view: the terminal, the text and markdown
 * transcripts, and next the HTML export and the live page. Values are raw text (not sanitised, not
 * escaped): each view makes them safe for its medium (terminal pictures, markdown cells, HTML).
 */
import type { SessionSummary } from "../../summary/summarize.ts";
import { formatCost, formatDuration, formatTokenTotals } from "./format.ts";

/** Footer facts that come from the agents' diagnostic metrics rather than from the summary (./metric.ts decides which). */
export interface FooterDiagnostics {
  /** The agent's latest estimate of the root session's thinking tokens. */
  readonly thinkingTokens: number | undefined;
  /** Time the root session's turns took, summed. */
  readonly turnMs: number | undefined;
}

/** A session's closing facts as a transcript's footer shows them; `undefined` (or 0) when the agent did not say. */
export interface SessionFooterView {
  readonly status: string;
  readonly error: string | undefined;
  /** "claude-code 2.1.220". */
  readonly agent: string | undefined;
  readonly model: string | undefined;
  readonly sessionId: string | undefined;
  /** "33 input, 399 output, 64006 cache read"; `undefined` when no count was reported. */
  readonly tokens: string | undefined;
  /** "$0.0542" as the agent reported it, "~$2.39" estimated from the price table (as `sessions` marks it). */
  readonly cost: string | undefined;
  /** "~1200 tokens (estimated)": the agent's estimate, only when it reported no reasoning tokens. */
  readonly thinking: string | undefined;
  /** "18.7s": the session's duration, else its turns' added up. */
  readonly duration: string | undefined;
  readonly turns: number | undefined;
  /** "3 (1 failed, 1 unfinished)". */
  readonly toolCalls: string;
  readonly subagents: number;
  /** Repairs the stream needed, all kinds together. */
  readonly repairs: number;
  /** Records no dialect understood. */
  readonly unknownRecords: number;
}

/** The footer of a session, from its summary (the same fold as `agentstream summary`) and the diagnostics. */
export function sessionFooterView(summary: SessionSummary, diagnostics: FooterDiagnostics): SessionFooterView {
  const reportedReasoning = summary.usage.reasoningTokens !== null && summary.usage.reasoningTokens > 0;
  const durationMs = summary.durationMs ?? diagnostics.turnMs;
  const tokens = formatTokenTotals(summary.usage);
  return {
    status: summary.status,
    error: summary.error ?? undefined,
    agent: formatAgent(summary) || undefined,
    model: summary.model ?? undefined,
    sessionId: summary.sessionId ?? undefined,
    tokens: tokens === "" ? undefined : tokens,
    cost: summary.costUsd !== null ? formatCost(summary.costUsd, summary.costEstimated) : undefined,
    thinking:
      diagnostics.thinkingTokens !== undefined && !reportedReasoning ? `~${diagnostics.thinkingTokens} tokens (estimated)` : undefined,
    duration: durationMs !== undefined ? formatDuration(durationMs) : undefined,
    turns: summary.turns ?? undefined,
    toolCalls: formatToolCount(summary),
    subagents: summary.subagents,
    repairs: Object.values(summary.repairs).reduce((a, b) => a + b, 0),
    unknownRecords: summary.records.unknown,
  };
}

/** "3 (1 failed, 1 unfinished)". */
function formatToolCount(summary: SessionSummary): string {
  const failed = summary.toolCalls.filter((t) => t.status === "error").length;
  const open = summary.toolCalls.filter((t) => t.status === "incomplete").length;
  const notes = [failed > 0 ? `${failed} failed` : "", open > 0 ? `${open} unfinished` : ""].filter(Boolean);
  return `${summary.toolCalls.length}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`;
}

/** "claude-code 2.1.220". */
function formatAgent(summary: SessionSummary): string {
  return [summary.agent, summary.agentVersion].filter((v): v is string => v !== null).join(" ");
}
