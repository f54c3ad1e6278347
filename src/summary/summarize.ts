/**
 * One session's facts, folded from its events: what `agentstream summary --json` prints.
 * Anything the input did not carry is `null`, never invented.
 */
import type { Issue } from "../errors.ts";
import type { AgentEvent, Usage } from "../model/events.ts";
import { addUsage, emptyUsage, isUsageEmpty } from "../model/usage.ts";
import type { HealthStats, RecordStats } from "../pipeline/create-event-reader.ts";
import { CostEstimate } from "./estimate.ts";

/**
 * Dialects whose input is a saved session log, written from the session's first record to its last: there the
 * span of the timestamps is the session's duration. A live stream's timestamps only cover what was printed
 * (not the start-up or the model's first latency), so its duration comes from its end record or stays null.
 */
const SAVED_SESSION_DIALECTS: ReadonlySet<string> = new Set([
  "claude-session",
  "codex-session",
  "gemini-session",
  "qwen-session",
  "copilot",
  "opencode-session",
]);

/** How a tool call ended, as far as the stream says. */
export type ToolCallStatus = "success" | "error" | "incomplete";

/** The `summary --json` contract (docs/cli.md). */
export interface SessionSummary {
  dialect: string | null;
  agent: string | null;
  agentVersion: string | null;
  sessionId: string | null;
  model: string | null;
  /**
   * From the agent's end record; `ended` for a saved session log (Claude Code, Codex, Gemini CLI keep no end record:
   * the log is the whole of what was kept, not a stream cut short); `incomplete` for a stream with no end record.
   */
  status: "success" | "error" | "interrupted" | "ended" | "incomplete";
  error: string | null;
  finalText: string | null;
  toolCalls: { id: string; name: string; status: ToolCallStatus }[];
  /** The session's tokens, subagents included where the log carries theirs (the rule per dialect: docs/events.md). */
  usage: Usage;
  /** The part of `usage` that subagent (sidechain) sessions spent; every figure null when none reported any. */
  subagentUsage: Usage;
  /**
   * What the agent reported; else, for a saved session log or a stream with no cost, estimated from the price table
   * as `usage` and `sessions` estimate it (`costEstimated`); null when nothing was reported and a model has no price.
   */
  costUsd: number | null;
  /** True when `costUsd` holds an estimate from the price table (shown with `~`). */
  costEstimated: boolean;
  /** Models whose requests have no price in the table (then `costUsd` is null: the cost is not known). */
  unpricedModels: string[];
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

/** Text with something but white space in it (as `trim() !== ""`, without a trimmed copy of each message). */
const NOT_BLANK = /\S/;

/** Issues listed in a summary: the first ones; `health` counts them all. Keeps memory flat on a long, broken stream. */
const LISTED_ISSUES = 1000;

/** What a summary builder keeps besides the running totals. */
export interface SummaryBuilderOptions {
  /**
   * List every tool call in `toolCalls` (one entry per call, kept to the end: it grows with the stream). A view that
   * shows only the totals (the terminal footer) passes false: `toolCalls` is then empty and its memory flat.
   * @defaultValue true
   */
  readonly toolCalls?: boolean;
}

/** Creates an accumulator for one stream's summary. */
export function createSummaryBuilder(options: SummaryBuilderOptions = {}): SummaryBuilder {
  const builder = new SummaryState();
  const listTools = options.toolCalls !== false;
  return {
    add(event) {
      builder.noteTime(event.time);
      builder.notePrompt(event);
      switch (event.type) {
        case "session.started":
          if (event.parentSessionId !== undefined || event.parentToolCallId !== undefined) {
            if (event.sessionId !== undefined && event.sessionId !== builder.rootId) builder.childSessions.add(event.sessionId);
          } else if (builder.started === undefined) {
            builder.started = event;
            builder.rootId = event.sessionId;
          }
          break;
        case "session.completed":
          if (builder.isRoot(event)) builder.completed = event;
          break;
        case "turn.started":
          if (builder.isRoot(event)) builder.turnsStarted++;
          break;
        case "turn.completed":
          if (builder.isRoot(event)) builder.turnsCompleted++;
          if (event.usage) builder.turnUsage = addUsage(builder.turnUsage, event.usage);
          builder.addCost(event.costUsd);
          break;
        case "usage":
          if (event.scope === "cumulative") builder.cumulativeUsage = event.usage;
          else builder.deltaUsage = addUsage(builder.deltaUsage, event.usage);
          if (event.scope === "delta" && builder.isChild(event)) builder.subagentUsage = addUsage(builder.subagentUsage, event.usage);
          if (event.model !== undefined && builder.isRoot(event)) builder.usageModel = event.model;
          builder.addCost(event.costUsd);
          builder.estimate.add(event, event.model ?? builder.usageModel ?? builder.started?.model);
          break;
        case "message.completed":
          if (event.role === "assistant" && event.kind === "text" && builder.isRoot(event) && NOT_BLANK.test(event.text))
            builder.lastAssistantText = event.text;
          break;
        case "tool.started": {
          if (!listTools) break;
          const known = builder.tools.get(event.toolCallId);
          if (known === undefined) builder.tools.set(event.toolCallId, { id: event.toolCallId, name: event.name, status: "incomplete" });
          break;
        }
        case "tool.completed": {
          if (!listTools) break;
          const known = builder.tools.get(event.toolCallId);
          const status: ToolCallStatus = event.isError ? "error" : "success";
          if (known === undefined) builder.tools.set(event.toolCallId, { id: event.toolCallId, name: event.name ?? "", status });
          else known.status = status;
          break;
        }
        case "error":
          if (event.fatal === true || event.scope === "session") builder.lastFatalError = event.message;
          break;
        case "notice":
          if (event.kind === "turn_context" && builder.isRoot(event)) builder.turnContexts++;
          break;
        case "repair":
          builder.repairs[event.kind] = (builder.repairs[event.kind] ?? 0) + 1;
          break;
        default:
          break;
      }
    },
    addIssue(issue) {
      if (issue.severity === "info" || builder.issues.length >= LISTED_ISSUES) return;
      builder.issues.push({ line: issue.line ?? 0, code: issue.code, message: issue.message });
    },
    result(stats, dialect, health) {
      let usage: Usage;
      if (builder.completed?.usage !== undefined && !isUsageEmpty(builder.completed.usage)) usage = builder.completed.usage;
      else if (builder.cumulativeUsage !== undefined) usage = addUsage(builder.cumulativeUsage, emptyUsage());
      else usage = addUsage(builder.turnUsage, builder.deltaUsage);
      const turns =
        builder.completed?.turns ??
        (Math.max(builder.turnsStarted, builder.turnsCompleted) || builder.turnContexts || builder.userPrompts || null);
      const saved = dialect !== undefined && SAVED_SESSION_DIALECTS.has(dialect);
      const span =
        saved && builder.firstTime !== undefined && builder.lastTime !== undefined && builder.lastTime > builder.firstTime
          ? builder.lastTime - builder.firstTime
          : null;
      const status = builder.completed?.status ?? (saved ? "ended" : "incomplete");
      return {
        dialect: dialect ?? null,
        agent: builder.started?.agent ?? null,
        agentVersion: builder.started?.agentVersion ?? null,
        sessionId: builder.started?.sessionId ?? builder.completed?.sessionId ?? null,
        model: builder.started?.model ?? builder.usageModel ?? null,
        status,
        error: builder.completed?.error ?? (status === "success" || status === "interrupted" ? null : (builder.lastFatalError ?? null)),
        finalText: builder.completed?.finalText ?? builder.lastAssistantText ?? null,
        toolCalls: [...builder.tools.values()].map((t) => ({ ...t })),
        usage,
        subagentUsage: { ...builder.subagentUsage },
        ...builder.costOf(dialect),
        durationMs: builder.completed?.durationMs ?? span,
        turns,
        subagents: builder.childSessions.size,
        repairs: { ...builder.repairs },
        health: health ?? {
          parseErrors: stats.invalid,
          unknownRecords: stats.unknown,
          repairs: Object.values(builder.repairs).reduce((a, b) => a + b, 0),
          largeDeltas: 0,
          protocolViolations: 0,
        },
        records: { ...stats },
        issues: [...builder.issues],
      };
    },
  };
}

/** The summary's running totals, and one fold per event type. */
class SummaryState {
  started: Extract<AgentEvent, { type: "session.started" }> | undefined;
  completed: Extract<AgentEvent, { type: "session.completed" }> | undefined;
  rootId: string | undefined;
  readonly childSessions = new Set<string>();
  readonly tools = new Map<string, { id: string; name: string; status: ToolCallStatus }>();
  lastAssistantText: string | undefined;
  turnUsage = emptyUsage();
  deltaUsage = emptyUsage();
  subagentUsage = emptyUsage();
  usageModel: string | undefined;
  firstTime: number | undefined;
  lastTime: number | undefined;
  userPrompts = 0;
  /** Codex rollouts write one turn_context per turn; older ones have no task_started to count. */
  turnContexts = 0;
  afterUserText = false;
  cumulativeUsage: Usage | undefined;
  cost: number | null = null;
  turnsStarted = 0;
  turnsCompleted = 0;
  lastFatalError: string | undefined;
  readonly repairs: Record<string, number> = {};
  readonly issues: SessionSummary["issues"] = [];

  isRoot(event: AgentEvent): boolean {
    return event.sessionId === undefined || this.rootId === undefined || !this.childSessions.has(event.sessionId);
  }

  isChild(event: AgentEvent): boolean {
    return event.sessionId !== undefined && this.childSessions.has(event.sessionId);
  }

  readonly estimate = new CostEstimate();

  /**
   * The session's cost: the agent's total; else each request's reported cost, the others estimated from the price
   * table (docs/usage.md, "Cost": the same rule as `usage`); unknown (null) when a model has no price.
   */
  costOf(dialect: string | undefined): Pick<SessionSummary, "costUsd" | "costEstimated" | "unpricedModels"> {
    const reported = this.completed?.costUsd;
    const estimate = reported === undefined ? this.estimate.result(dialect) : undefined;
    if (estimate === undefined) return { costUsd: reported ?? this.cost, costEstimated: false, unpricedModels: [] };
    const unpricedModels = [...estimate.unpricedModels];
    if (unpricedModels.length > 0) return { costUsd: null, costEstimated: false, unpricedModels };
    // To the millionth of a dollar, as `usage` and `sessions` print it: sums of floats otherwise print their noise.
    const usd = Math.round(((this.cost ?? 0) + estimate.usd) * 1e6) / 1e6;
    return { costUsd: usd, costEstimated: estimate.usd > 0, unpricedModels };
  }

  addCost(value: number | undefined): void {
    if (value !== undefined) this.cost = (this.cost ?? 0) + value;
  }

  /** The time `noteTime` saw last (a repeat changes neither end). */
  private lastTimeText: string | undefined;

  /** Keeps the earliest and latest timestamp, for a duration when no record states one. */
  noteTime(time: string | undefined): void {
    // Consecutive events mostly share one time (under `run`, every event of a chunk has its receipt time): parse it once.
    if (time === undefined || time === this.lastTimeText) return;
    this.lastTimeText = time;
    const at = Date.parse(time);
    if (Number.isNaN(at)) return;
    this.firstTime = this.firstTime === undefined ? at : Math.min(this.firstTime, at);
    this.lastTime = this.lastTime === undefined ? at : Math.max(this.lastTime, at);
  }

  /**
   * Counts user prompts, for logs without turn records: a user text starts a turn, except right after another user
   * text with nothing between (the text blocks of one prompt record arrive as adjacent messages).
   */
  notePrompt(event: AgentEvent): void {
    if (event.type === "message.started" || event.type === "message.delta" || !this.isRoot(event)) return;
    const userText = event.type === "message.completed" && event.role === "user" && event.kind === "text";
    if (userText && !this.afterUserText) this.userPrompts++;
    this.afterUserText = userText;
  }
}
