/**
 * One session's facts, folded from its events: what `agentstream summary --json` prints.
 * Anything the input did not carry is `null`, never invented.
 */
import type { Issue } from "../errors.ts";
import type { AgentEvent, Usage } from "../model/events.ts";
import { addUsage, emptyUsage, isUsageEmpty } from "../model/usage.ts";
import type { HealthStats, RecordStats } from "../pipeline/create-event-reader.ts";

/**
 * Dialects whose input is a saved session log, written from the session's first record to its last: there the
 * span of the timestamps is the session's duration. A live stream's timestamps only cover what was printed
 * (not the start-up or the model's first latency), so its duration comes from its end record or stays null.
 */
const SAVED_SESSION_DIALECTS: ReadonlySet<string> = new Set(["claude-session", "codex-session", "gemini-session"]);

/** How a tool call ended, as far as the stream says. */
export type ToolCallStatus = "success" | "error" | "incomplete";

/** The `summary --json` contract (docs/cli.md). */
export interface SessionSummary {
  dialect: string | null;
  agent: string | null;
  agentVersion: string | null;
  sessionId: string | null;
  model: string | null;
  status: "success" | "error" | "interrupted" | "incomplete";
  error: string | null;
  finalText: string | null;
  toolCalls: { id: string; name: string; status: ToolCallStatus }[];
  /** The session's tokens, subagents included where the log carries theirs (the rule per dialect: docs/events.md). */
  usage: Usage;
  /** The part of `usage` that subagent (sidechain) sessions spent; every figure null when none reported any. */
  subagentUsage: Usage;
  costUsd: number | null;
  durationMs: number | null;
  turns: number | null;
  /** Subagents that ran: sessions with a parent (a Task / Agent call's own sidechain or file). */
  subagents: number;
  /** Repairs the repair stage made, by kind. */
  repairs: Record<string, number>;
  /** Health of the stream: parse errors, unknown records, repairs, large deltas, protocol violations. */
  health: HealthStats;
  records: RecordStats;
  issues: { line: number; code: string; message: string }[];
}

/** Folds events one at a time; `result()` can be called at any point. */
export interface SummaryBuilder {
  add(event: AgentEvent): void;
  addIssue(issue: Issue): void;
  result(stats: RecordStats, dialect: string | undefined, health?: HealthStats): SessionSummary;
}

/** Issues listed in a summary: the first ones; `health` counts them all. Keeps memory flat on a long, broken stream. */
const LISTED_ISSUES = 1000;

/** Creates an accumulator for one stream's summary. */
export function createSummaryBuilder(): SummaryBuilder {
  let started: Extract<AgentEvent, { type: "session.started" }> | undefined;
  let completed: Extract<AgentEvent, { type: "session.completed" }> | undefined;
  let rootId: string | undefined;
  const childSessions = new Set<string>();
  const tools = new Map<string, { id: string; name: string; status: ToolCallStatus }>();
  let lastAssistantText: string | undefined;
  let turnUsage = emptyUsage();
  let deltaUsage = emptyUsage();
  let subagentUsage = emptyUsage();
  let usageModel: string | undefined;
  let firstTime: number | undefined;
  let lastTime: number | undefined;
  let userPrompts = 0;
  /** Codex rollouts write one turn_context per turn; older ones have no task_started to count. */
  let turnContexts = 0;
  let afterUserText = false;
  let cumulativeUsage: Usage | undefined;
  let cost: number | null = null;
  let turnsStarted = 0;
  let turnsCompleted = 0;
  let lastFatalError: string | undefined;
  const repairs: Record<string, number> = {};
  const issues: SessionSummary["issues"] = [];

  const isRoot = (event: AgentEvent): boolean =>
    event.sessionId === undefined || rootId === undefined || !childSessions.has(event.sessionId);
  const isChild = (event: AgentEvent): boolean => event.sessionId !== undefined && childSessions.has(event.sessionId);
  const addCost = (value: number | undefined): void => {
    if (value !== undefined) cost = (cost ?? 0) + value;
  };

  /** Keeps the earliest and latest timestamp, for a duration when no record states one. */
  const noteTime = (time: string | undefined): void => {
    const at = time === undefined ? Number.NaN : Date.parse(time);
    if (Number.isNaN(at)) return;
    firstTime = firstTime === undefined ? at : Math.min(firstTime, at);
    lastTime = lastTime === undefined ? at : Math.max(lastTime, at);
  };
  /**
   * Counts user prompts, for logs without turn records: a user text starts a turn, except right after another user
   * text with nothing between (the text blocks of one prompt record arrive as adjacent messages).
   */
  const notePrompt = (event: AgentEvent): void => {
    if (event.type === "message.started" || event.type === "message.delta" || !isRoot(event)) return;
    const userText = event.type === "message.completed" && event.role === "user" && event.kind === "text";
    if (userText && !afterUserText) userPrompts++;
    afterUserText = userText;
  };

  return {
    add(event) {
      noteTime(event.time);
      notePrompt(event);
      switch (event.type) {
        case "session.started":
          if (event.parentSessionId !== undefined || event.parentToolCallId !== undefined) {
            if (event.sessionId !== undefined && event.sessionId !== rootId) childSessions.add(event.sessionId);
          } else if (started === undefined) {
            started = event;
            rootId = event.sessionId;
          }
          break;
        case "session.completed":
          if (isRoot(event)) completed = event;
          break;
        case "turn.started":
          if (isRoot(event)) turnsStarted++;
          break;
        case "turn.completed":
          if (isRoot(event)) turnsCompleted++;
          if (event.usage) turnUsage = addUsage(turnUsage, event.usage);
          addCost(event.costUsd);
          break;
        case "usage":
          if (event.scope === "cumulative") cumulativeUsage = event.usage;
          else deltaUsage = addUsage(deltaUsage, event.usage);
          if (event.scope === "delta" && isChild(event)) subagentUsage = addUsage(subagentUsage, event.usage);
          if (event.model !== undefined && isRoot(event)) usageModel = event.model;
          addCost(event.costUsd);
          break;
        case "message.completed":
          if (event.role === "assistant" && event.kind === "text" && isRoot(event) && event.text.trim() !== "")
            lastAssistantText = event.text;
          break;
        case "tool.started": {
          const known = tools.get(event.toolCallId);
          if (known === undefined) tools.set(event.toolCallId, { id: event.toolCallId, name: event.name, status: "incomplete" });
          break;
        }
        case "tool.completed": {
          const known = tools.get(event.toolCallId);
          const status: ToolCallStatus = event.isError ? "error" : "success";
          if (known === undefined) tools.set(event.toolCallId, { id: event.toolCallId, name: event.name ?? "", status });
          else known.status = status;
          break;
        }
        case "error":
          if (event.fatal === true || event.scope === "session") lastFatalError = event.message;
          break;
        case "notice":
          if (event.kind === "turn_context" && isRoot(event)) turnContexts++;
          break;
        case "repair":
          repairs[event.kind] = (repairs[event.kind] ?? 0) + 1;
          break;
        default:
          break;
      }
    },
    addIssue(issue) {
      if (issue.severity === "info" || issues.length >= LISTED_ISSUES) return;
      issues.push({ line: issue.line ?? 0, code: issue.code, message: issue.message });
    },
    result(stats, dialect, health) {
      let usage: Usage;
      if (completed?.usage !== undefined && !isUsageEmpty(completed.usage)) usage = completed.usage;
      else if (cumulativeUsage !== undefined) usage = addUsage(cumulativeUsage, emptyUsage());
      else usage = addUsage(turnUsage, deltaUsage);
      const turns = completed?.turns ?? (Math.max(turnsStarted, turnsCompleted) || turnContexts || userPrompts || null);
      const saved = dialect !== undefined && SAVED_SESSION_DIALECTS.has(dialect);
      const span = saved && firstTime !== undefined && lastTime !== undefined && lastTime > firstTime ? lastTime - firstTime : null;
      const status = completed?.status ?? "incomplete";
      return {
        dialect: dialect ?? null,
        agent: started?.agent ?? null,
        agentVersion: started?.agentVersion ?? null,
        sessionId: started?.sessionId ?? completed?.sessionId ?? null,
        model: started?.model ?? usageModel ?? null,
        status,
        error: completed?.error ?? (status === "error" || status === "incomplete" ? (lastFatalError ?? null) : null),
        finalText: completed?.finalText ?? lastAssistantText ?? null,
        toolCalls: [...tools.values()].map((t) => ({ ...t })),
        usage,
        subagentUsage: { ...subagentUsage },
        costUsd: completed?.costUsd ?? cost,
        durationMs: completed?.durationMs ?? span,
        turns,
        subagents: childSessions.size,
        repairs: { ...repairs },
        health: health ?? {
          parseErrors: stats.invalid,
          unknownRecords: stats.unknown,
          repairs: Object.values(repairs).reduce((a, b) => a + b, 0),
          largeDeltas: 0,
          protocolViolations: 0,
        },
        records: { ...stats },
        issues: [...issues],
      };
    },
  };
}
