/**
 * The agentstream event model, version 1.
 *
 * One discriminated union (`AgentEvent`, switch on `type`) that every agent dialect decodes into
 * and every writer, validator and renderer reads from. Names are dot-namespaced, lifecycle events
 * are past tense, and streamed content comes as started / delta / completed triads tied by an id.
 * The prose reference is docs/events.md; the JSON Schema is schema/agentstream.schema.json.
 *
 * This file imports nothing but the JSON value types (beside LosslessInteger): the model is plain data.
 */
import type { JsonObject, JsonValue } from "./lossless-integer.ts";

/** The version of this model; written as `v` on every event. Bumped only for breaking changes. */
export const MODEL_VERSION = 1 as const;

export type { JsonObject, JsonValue } from "./lossless-integer.ts";

/** Where an event came from in its input. */
export interface EventSource {
  /** The dialect that decoded the record (`claude`, `codex`, `json`, ...). */
  readonly dialect: string;
  /** 1-based line of the input record that produced this event; absent for synthesized events. */
  readonly line?: number;
}

/** Fields every event carries: the envelope. */
export interface EventBase {
  /** Model version (`1`). */
  readonly v: typeof MODEL_VERSION;
  /** Position of the event in its output stream: 0, 1, 2, ... with no gaps. */
  readonly seq: number;
  /** When it happened, RFC 3339, if the input said so; under `run`, else when `run` received it (docs/events.md, Times). Readers never take it from their clock. */
  readonly time?: string;
  /** The agent session the event belongs to (a subagent has its own, see `session.started.parentSessionId`). */
  readonly sessionId?: string;
  /** The input record it came from. */
  readonly source?: EventSource;
  /** The source record verbatim, when `includeRaw` is set (always for `unknown`). */
  readonly raw?: JsonValue;
}

/** Token counts. Each field is the agent's own figure; `null` when the agent did not report it. */
export interface Usage {
  /** Input (prompt) tokens as the agent reports them; see docs/dialects for whether cached tokens are included. */
  readonly inputTokens: number | null;
  /** Output (completion) tokens, including reasoning where the agent folds it in. */
  readonly outputTokens: number | null;
  /** Input tokens served from the prompt cache. */
  readonly cacheReadTokens: number | null;
  /** Input tokens written to the prompt cache. */
  readonly cacheWriteTokens: number | null;
  /** Reasoning (thinking) tokens, where reported separately. */
  readonly reasoningTokens: number | null;
}

/** Who produced a message. */
export type MessageRole = "assistant" | "user" | "system" | "developer";
/** What a message is: visible text, reasoning, or reasoning the provider withheld (signature only). */
export type MessageKind = "text" | "reasoning" | "redacted_reasoning";
/** How a session ended. */
export type SessionStatus = "success" | "error" | "interrupted";

/** A session began: the agent, its model and its environment. */
export interface SessionStartedEvent extends EventBase {
  readonly type: "session.started";
  /** Agent product (`claude-code`, `codex`, `gemini-cli`, ...). */
  readonly agent?: string;
  readonly agentVersion?: string;
  readonly model?: string;
  /** Working directory. */
  readonly cwd?: string;
  /** Names of the tools offered to the model. */
  readonly tools?: readonly string[];
  /** For a subagent: the session that started it. */
  readonly parentSessionId?: string;
  /** For a subagent: the tool call in the parent that started it. */
  readonly parentToolCallId?: string;
  /** Permission or sandbox mode, as the agent names it. */
  readonly permissionMode?: string;
  /** Anything else the agent said at start (MCP servers, skills, ...), kept as JSON. */
  readonly details?: JsonObject;
}

/** A session ended. Fields the input did not carry are absent, never invented. */
export interface SessionCompletedEvent extends EventBase {
  readonly type: "session.completed";
  readonly status: SessionStatus;
  /** Why it failed, for status `error` or `interrupted`. */
  readonly error?: string;
  /** The final answer as the agent reported it. */
  readonly finalText?: string;
  /** Totals for the whole session. */
  readonly usage?: Usage;
  readonly costUsd?: number;
  readonly durationMs?: number;
  /** Turns (model round trips) as the agent counts them. */
  readonly turns?: number;
  /** Agent-specific extras (stop reason, per-model usage, ...). */
  readonly details?: JsonObject;
}

/** One model request and its response began. */
export interface TurnStartedEvent extends EventBase {
  readonly type: "turn.started";
  readonly turnId: string;
}

/** A turn ended. */
export interface TurnCompletedEvent extends EventBase {
  readonly type: "turn.completed";
  readonly turnId: string;
  readonly status?: "success" | "error";
  readonly error?: string;
  /** Usage of this turn (or the cumulative figure the agent reports at turn end: see the dialect doc). */
  readonly usage?: Usage;
  readonly costUsd?: number;
}

/** Output-level metadata shared by message events (AAEP output_id, content_type, language; Witness brain). */
export interface MessageMeta {
  /** MIME type of the text (`text/plain`, `text/markdown`). */
  readonly contentType?: string;
  /** BCP 47 language of the text, when known. */
  readonly language?: string;
  /** Which brain produced it (Witness Forge `path1` / `path2`), or another producer channel name. */
  readonly channel?: string;
}

/** A message began; its text follows as deltas. */
export interface MessageStartedEvent extends EventBase, MessageMeta {
  readonly type: "message.started";
  readonly messageId: string;
  readonly role: MessageRole;
  readonly kind: MessageKind;
}

/** More text for message `messageId`. */
export interface MessageDeltaEvent extends EventBase {
  readonly type: "message.delta";
  readonly messageId: string;
  /**
   * The message's role and kind, repeated from its `message.started` so that a consumer printing
   * only deltas never shows reasoning, or the user's prompt, as the answer. Every producer sets
   * them; streams written before they existed may lack them, and reading those back fills them in
   * from `message.started`.
   */
  readonly role: MessageRole;
  readonly kind: MessageKind;
  /** The new text only. */
  readonly text: string;
  /** Offset of `text` in the whole message, in UTF-16 code units; lets a reader detect gaps and duplicates. */
  readonly position: number;
}

/** A message is complete; `text` is all of it. */
export interface MessageCompletedEvent extends EventBase, MessageMeta {
  readonly type: "message.completed";
  readonly messageId: string;
  readonly role: MessageRole;
  readonly kind: MessageKind;
  readonly text: string;
  /** Provider signature for reasoning (Claude `thinking.signature`), kept so transcripts can be replayed. */
  readonly signature?: string;
}

/** What a tool does, so views can show it well. */
export type ToolKind =
  | "command"
  | "file_read"
  | "file_write"
  | "file_edit"
  | "search"
  | "web_search"
  | "web_fetch"
  | "mcp"
  | "subagent"
  | "todo"
  | "other";

/** The model called a tool. */
export interface ToolStartedEvent extends EventBase {
  readonly type: "tool.started";
  readonly toolCallId: string;
  /** The tool's name as the agent gives it (`Bash`, `shell`, `read_file`). */
  readonly name: string;
  readonly kind?: ToolKind;
  /** The arguments; absent while they stream as `tool.input.delta`. */
  readonly input?: JsonValue;
  /** MCP server, for MCP tools. */
  readonly server?: string;
  /** Why the model called it (a short description the agent gave). */
  readonly description?: string;
}

/** A piece of a tool call's arguments, streamed as JSON text. */
export interface ToolInputDeltaEvent extends EventBase {
  readonly type: "tool.input.delta";
  readonly toolCallId: string;
  /** JSON text fragment; the fragments concatenate to the arguments. */
  readonly text: string;
}

/** A tool reported progress or partial output while running. */
export interface ToolProgressEvent extends EventBase {
  readonly type: "tool.progress";
  readonly toolCallId: string;
  /** New output text, if any. */
  readonly output?: string;
  /** A status line (`running`, `42% done`). */
  readonly status?: string;
  readonly elapsedMs?: number;
}

/** A tool call finished. */
export interface ToolCompletedEvent extends EventBase {
  readonly type: "tool.completed";
  readonly toolCallId: string;
  /** Repeated from `tool.started` when known, so the event stands alone. */
  readonly name?: string;
  /** The output text (or a JSON rendering of structured output). */
  readonly output?: string;
  /** Structured output, when the agent gave it. */
  readonly result?: JsonValue;
  readonly exitCode?: number;
  readonly isError: boolean;
  readonly durationMs?: number;
}

/** One file the agent changed. */
export interface FileChange {
  readonly path: string;
  readonly kind: "add" | "delete" | "update" | "rename";
  /** Unified diff or new content, when the agent gave it. */
  readonly diff?: string;
  /** New path, for a rename. */
  readonly newPath?: string;
}

/** The agent changed files. */
export interface FileChangedEvent extends EventBase {
  readonly type: "file.changed";
  readonly changes: readonly FileChange[];
  /** The tool call that made the change, when there was one. */
  readonly toolCallId?: string;
  readonly status?: "success" | "error";
}

/** One item of a plan or todo list. */
export interface PlanItem {
  readonly text: string;
  readonly status: "pending" | "in_progress" | "completed";
}

/** The agent's plan or todo list, as a whole (each event replaces the previous one). */
export interface PlanUpdatedEvent extends EventBase {
  readonly type: "plan.updated";
  readonly items: readonly PlanItem[];
  readonly planId?: string;
}

/** A usage figure arrived outside a turn or session end (per-message usage, token_count). */
export interface UsageEvent extends EventBase {
  readonly type: "usage";
  readonly usage: Usage;
  /** `delta`: add it up; `cumulative`: the running total so far (replaces earlier ones). */
  readonly scope: "delta" | "cumulative";
  readonly costUsd?: number;
  readonly model?: string;
}

/** A named diagnostic (the Witness `metric` event): never dropped by any view. */
export interface MetricEvent extends EventBase {
  readonly type: "metric";
  /** What it measures (`flame`, `thinking_tokens`, `context_window`). */
  readonly name: string;
  /** A short label (the Witness `content`). */
  readonly text?: string;
  readonly values: JsonObject;
}

/** The provider reported a rate limit or quota state. */
export interface RateLimitEvent extends EventBase {
  readonly type: "rate_limit";
  /** `allowed`, `allowed_warning`, `rejected`, as the agent says. */
  readonly status: string;
  /** When the limit resets, RFC 3339. */
  readonly resetsAt?: string;
  /** Which limit (`five_hour`, `weekly`). */
  readonly limit?: string;
  readonly details?: JsonObject;
}

/** A request is being retried. */
export interface RetryEvent extends EventBase {
  readonly type: "retry";
  readonly attempt: number;
  readonly maxAttempts?: number;
  readonly delayMs?: number;
  readonly error?: string;
}

/** The producer is alive but has nothing to say (oneshot `is_heartbeat`). */
export interface HeartbeatEvent extends EventBase {
  readonly type: "heartbeat";
  /** Time since the last real event, when known. */
  readonly idleMs?: number;
}

/** Where an error belongs. */
export type ErrorScope = "session" | "turn" | "tool" | "api" | "stream";

/** Something went wrong inside the agent or its provider. */
export interface ErrorEvent extends EventBase {
  readonly type: "error";
  readonly scope: ErrorScope;
  readonly message: string;
  /** Machine-readable code from the agent (`rate_limit_error`, `model_not_found`). */
  readonly code?: string;
  /** True when the session cannot go on. */
  readonly fatal?: boolean;
  readonly toolCallId?: string;
  readonly turnId?: string;
}

/** A notice from the agent that is neither a message nor an error: hook output, compaction, status. */
export interface NoticeEvent extends EventBase {
  readonly type: "notice";
  /** What kind (`hook`, `compact_boundary`, `status`, `warning`). */
  readonly kind: string;
  readonly level: "info" | "warning";
  readonly text: string;
  readonly details?: JsonObject;
}

/** A line of plain text in the input: a banner, a log line, a warning (oneshot `preamble`). Kept verbatim. */
export interface TextEvent extends EventBase {
  readonly type: "text";
  readonly text: string;
  /** `preamble` before the first structured record, `interleaved` after it. */
  readonly position: "preamble" | "interleaved";
}

/** A stream repair that the repair stage made: what it removed and why, so it can be audited. */
export interface RepairEvent extends EventBase {
  readonly type: "repair";
  /** `snapshot-as-delta`, `duplicate-delta`, `final-replaces-deltas`, `orphan-delta`, ... */
  readonly kind: string;
  readonly messageId?: string;
  readonly toolCallId?: string;
  /** How many characters were removed (or added, negative never). */
  readonly removedChars: number;
  readonly message: string;
}

/** A record that no rule understands; kept verbatim and never dropped. */
export interface UnknownEvent extends EventBase {
  readonly type: "unknown";
  readonly raw: JsonValue;
  /** Why it is unknown (`unknown record type "foo"`). */
  readonly reason?: string;
  /**
   * What a view shows of it as plain text, when its format says an unknown record is shown so (a Witness Forge
   * record of a type the spec does not list: its `content`). Absent: views show it only when asked (`-v`).
   */
  readonly text?: string;
}

/** Every event agentstream emits. Switch on `type` and end with `assertNever`. */
export type AgentEvent =
  | SessionStartedEvent
  | SessionCompletedEvent
  | TurnStartedEvent
  | TurnCompletedEvent
  | MessageStartedEvent
  | MessageDeltaEvent
  | MessageCompletedEvent
  | ToolStartedEvent
  | ToolInputDeltaEvent
  | ToolProgressEvent
  | ToolCompletedEvent
  | FileChangedEvent
  | PlanUpdatedEvent
  | UsageEvent
  | MetricEvent
  | RateLimitEvent
  | RetryEvent
  | HeartbeatEvent
  | ErrorEvent
  | NoticeEvent
  | TextEvent
  | RepairEvent
  | UnknownEvent;

/** The `type` of any event. */
export type AgentEventType = AgentEvent["type"];
/** The event with the given `type`. */
export type EventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/** Keys of the envelope that the pipeline fills in; dialects leave them out (`source` too, unless re-reading our own output). */
type EnvelopeKey = "v" | "seq";
/** Distributes `Omit` over the union, so each member keeps its own fields. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event as a dialect decodes it, before the pipeline stamps `v`, `seq` and `source`. */
export type AgentEventDraft = DistributiveOmit<AgentEvent, EnvelopeKey>;

/** Every event type, in the order docs/events.md lists them. */
export const EVENT_TYPES: readonly AgentEventType[] = [
  "session.started",
  "session.completed",
  "turn.started",
  "turn.completed",
  "message.started",
  "message.delta",
  "message.completed",
  "tool.started",
  "tool.input.delta",
  "tool.progress",
  "tool.completed",
  "file.changed",
  "plan.updated",
  "usage",
  "metric",
  "rate_limit",
  "retry",
  "heartbeat",
  "error",
  "notice",
  "text",
  "repair",
  "unknown",
];

/**
 * The output of the `tool.completed` a decoder adds when the input ends with a tool call still
 * open: the call got no result (views say "no result", not "failed").
 */
export const NO_RESULT_OUTPUT = "the input ended before the tool call completed";

/** Whether a `tool.completed` only says the call never got its result. */
export function isNoResult(event: { readonly isError: boolean; readonly output?: string; readonly exitCode?: number }): boolean {
  return event.isError && event.exitCode === undefined && event.output === NO_RESULT_OUTPUT;
}

/** Compile-time exhaustiveness check for `switch (event.type)`. */
export function assertNever(value: never): never {
  throw new Error(`unhandled value: ${JSON.stringify(value)}`);
}
