// Source: opencode run --format json (anomalyco/opencode packages/opencode/src/cli/cmd/run.ts); versions and quirks: docs/dialects/opencode.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, PlanItem, ToolKind } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { TextRecord } from "../../framing/ndjson/create-ndjson-parser.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { isoFromEpochMs } from "../../dialect/time.ts";

/** Every line: `{type, timestamp (epoch ms), sessionID, ...data}`. */
interface OpencodeEventBase {
  type: string;
  timestamp: number;
  sessionID: string;
}
/** Fields of every message part. */
interface PartBase {
  id: string;
  sessionID: string;
  messageID: string;
}
interface StepStart extends OpencodeEventBase {
  type: "step_start";
  part: PartBase & { type: "step-start"; snapshot?: string };
}
interface TextLike extends OpencodeEventBase {
  type: "text" | "reasoning";
  /** Printed once, whole, when the part ends (`time.end` set); no token deltas in JSON mode. */
  part: PartBase & { type: "text" | "reasoning"; text: string; synthetic?: boolean; time?: { start: number; end?: number } };
}
/**
 * A tool part's state. Only `completed` (with `output`, `title`) and `error` (with `error`) are printed, both with
 * `input`, `metadata` and `time`; `pending` / `running` exist in the model.
 */
interface ToolState {
  status: "completed" | "error" | "pending" | "running" | string;
  input?: ToolInput;
  output?: string;
  error?: string;
  title?: string;
  /** bash: `exit`; edit: `diff` (unified). */
  metadata?: { exit?: number; diff?: string } & JsonObject;
  time?: { start: number; end?: number };
}
/** The tool inputs the decoder looks into: a description, a file path and content, todowrite's list. */
interface ToolInput {
  description?: string;
  filePath?: string;
  path?: string;
  content?: string;
  todos?: OpencodeTodo[];
}
/** A todowrite item: pending / in_progress / completed / cancelled. */
interface OpencodeTodo {
  content?: string;
  status?: string;
}
interface ToolUse extends OpencodeEventBase {
  type: "tool_use";
  part: PartBase & { type: "tool"; callID: string; tool: string; state: ToolState };
}
interface StepFinish extends OpencodeEventBase {
  type: "step_finish";
  /** Per step, not cumulative. `tokens.input` excludes cache reads; `total` (1.14+) = input + output + reasoning + cache. */
  part: PartBase & {
    type: "step-finish";
    reason: "stop" | "tool-calls" | string;
    cost: number;
    tokens: { total?: number; input: number; output: number; reasoning: number; cache: { read: number; write: number } };
  };
}
interface OpencodeError extends OpencodeEventBase {
  type: "error";
  /** `APIError`, `ProviderAuthError`, `UnknownError`, `MessageOutputLengthError`, `MessageAbortedError`, ... */
  error: { name: string; data?: { message?: string } & JsonObject };
}
/** Newer run.ts only; not seen in a capture. */
interface Done extends OpencodeEventBase {
  type: "done";
  reason: string;
  rejected?: JsonValue[];
}
/** Any record (StepStart, TextLike, ToolUse, StepFinish, OpencodeError, Done), seen for its part's ids; records without a part leave it undefined. */
interface PartEnvelope extends OpencodeEventBase {
  part?: PartBase;
}

const TYPES = new Set(["step_start", "step_finish", "text", "reasoning", "tool_use", "error", "done"]);
// run.ts prints this on stdout when a permission is auto-rejected (no --auto): "! permission requested: <perm> (<pattern>); auto-rejecting".
const PERMISSION = /^! permission requested: (.*); auto-rejecting$/;
// OpenCode's own error class (provider.ts), printed with its stack on stderr when the model does not exist.
const OPENCODE_STDERR = /^ProviderModelNotFoundError\b/;
// A stderr line naming an error class: `ProviderModelNotFoundError: ...`, `APIError: ...`.
const ERROR_LINE = /^([A-Z][A-Za-z]*Error): (.*)$/;

function toolKind(tool: string): ToolKind {
  switch (tool) {
    case "bash":
      return "command";
    case "read":
    case "list":
      return "file_read";
    case "write":
      return "file_write";
    case "edit":
    case "multiedit":
    case "patch":
    case "apply_patch":
      return "file_edit";
    case "glob":
    case "grep":
    case "codesearch":
      return "search";
    case "websearch":
      return "web_search";
    case "webfetch":
      return "web_fetch";
    case "todowrite":
    case "todoread":
      return "todo";
    case "task":
      return "subagent";
    default:
      return "other";
  }
}

function planOf(input: Wire<ToolInput> | undefined): PlanItem[] | undefined {
  if (fieldArr(input, "todos") === undefined) return undefined;
  const items: PlanItem[] = [];
  for (const todo of fieldItems(input, "todos")) {
    const text = fieldStr(todo, "content");
    if (text === undefined) continue;
    const status = fieldStr(todo, "status");
    // OpenCode todos are pending / in_progress / completed / cancelled; cancelled counts as completed (done with).
    items.push({
      text,
      status: status === "in_progress" ? "in_progress" : status === "completed" || status === "cancelled" ? "completed" : "pending",
    });
  }
  return items;
}

function fileChange(
  tool: string,
  input: Wire<ToolInput> | undefined,
  metadata: Wire<NonNullable<ToolState["metadata"]>> | undefined,
): FileChange | undefined {
  const kind = toolKind(tool);
  if (kind !== "file_write" && kind !== "file_edit") return undefined;
  const path = fieldStr(input, "filePath") ?? fieldStr(input, "path");
  if (path === undefined) return undefined;
  // edit keeps a unified diff in metadata.diff; write has the new content in input.content.
  return compact({
    path,
    kind: "update" as const,
    diff: fieldStr(metadata, "diff") ?? (kind === "file_write" ? fieldStr(input, "content") : undefined),
  });
}

/** OpenCode `run --format json`. */
export const opencode: Dialect = {
  name: "opencode",
  description: "OpenCode: opencode run --format json",
  detect(record) {
    if (record.kind === "text") return PERMISSION.test(record.text) || OPENCODE_STDERR.test(record.text);
    const v = record.value;
    return typeof v.type === "string" && TYPES.has(v.type) && typeof v.sessionID === "string" && typeof v.timestamp === "number";
  },
  // Every record names its session; a record of another session starts the next one (concatenated runs).
  startsSession(record) {
    if (record.kind !== "json" || typeof record.value.sessionID !== "string") return undefined;
    return { sessionId: record.value.sessionID };
  },
  // Permission rejections and stderr errors come as plain text between the JSON lines; we read them to surface them.
  readsText: true,
  createDecoder: createOpencodeDecoder,
};

function createOpencodeDecoder(): DialectDecoder {
  const decoding = new OpencodeStream();
  return {
    decode(record, context) {
      // A JSON-looking line the framer rejected (an elided record) was reported already; it is not OpenCode text.
      if (record.kind === "text") return record.invalid === true ? [] : decoding.text(record);
      decoding.sawJson = true;
      return decoding.decodeJson(record.value, context);
    },
    end() {
      const cut = decoding.closeTurn("error", undefined, "the input ended before step_finish");
      const out = [...cut, ...decoding.state.closeAll()];
      if (decoding.done || !decoding.sessionStarted || decoding.last === undefined) return out;
      // opencode prints no final record (the process exits); a last step that stopped, or a session error, is its end.
      const source = { dialect: "opencode", line: decoding.last.line };
      if (decoding.last.error !== undefined)
        out.push(
          compact({
            type: "session.completed" as const,
            status: "error" as const,
            error: decoding.last.error,
            time: decoding.last.time,
            source,
          }),
        );
      else if (decoding.last.reason === "stop" && cut.length === 0)
        out.push(compact({ type: "session.completed" as const, status: "success" as const, time: decoding.last.time, source }));
      return out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
export class OpencodeStream {
  readonly state = createStreamState();
  sessionStarted = false;
  sawJson = false;
  turnId: string | undefined;
  /** What ends the session when the input ends: the last step's reason, or a session error. */
  last: { reason?: string; error?: string; time: string | undefined; line: number } | undefined;
  done = false;
  readonly toolsStarted = new Set<string>();

  text(record: TextRecord): AgentEventDraft[] {
    const out: AgentEventDraft[] = [{ type: "text", text: record.text, position: this.sawJson ? "interleaved" : "preamble" }];
    const permission = PERMISSION.exec(record.text);
    if (permission !== null) {
      out.push({
        type: "error",
        scope: "tool",
        message: `permission requested: ${permission[1] ?? ""}; auto-rejected`,
        code: "permission_rejected",
        fatal: false,
      });
      return out;
    }
    const error = ERROR_LINE.exec(record.text);
    if (error !== null) out.push({ type: "error", scope: "api", message: record.text, code: error[1] as string });
    return out;
  }

  closeTurn(status: "success" | "error", time: string | undefined, error?: string): AgentEventDraft[] {
    if (this.turnId === undefined) return [];
    const id = this.turnId;
    this.turnId = undefined;
    return [compact({ type: "turn.completed" as const, turnId: id, status, error, time })];
  }

  toolUse(v: Wire<ToolUse>, time: string | undefined): AgentEventDraft[] {
    const part = fieldObj(v, "part");
    const toolState = fieldObj(part, "state");
    const name = fieldStr(part, "tool") ?? "unknown";
    const toolCallId = fieldStr(part, "callID") ?? fieldStr(part, "id") ?? this.state.nextId("tool");
    const input = field(toolState, "input");
    const toolInput = fieldObj(toolState, "input");
    const status = fieldStr(toolState, "status");
    const out: AgentEventDraft[] = [];
    if (!this.toolsStarted.has(toolCallId)) {
      this.toolsStarted.add(toolCallId);
      this.state.toolStarted(toolCallId, name);
      const description = fieldStr(toolInput, "description");
      out.push(compact({ type: "tool.started" as const, toolCallId, name, kind: toolKind(name), input, description, time }));
      const items = name === "todowrite" ? planOf(toolInput) : undefined;
      if (items !== undefined) out.push(compact({ type: "plan.updated" as const, items, time }));
    }
    if (status !== "completed" && status !== "error") {
      if (status !== undefined) out.push(compact({ type: "tool.progress" as const, toolCallId, status, time }));
      return out;
    }
    if (!this.state.toolCompleted(toolCallId)) return out; // already completed: a repeated line
    const isError = status === "error";
    const metadata = fieldObj(toolState, "metadata");
    const start = fieldNum(fieldObj(toolState, "time"), "start");
    const end = fieldNum(fieldObj(toolState, "time"), "end");
    out.push(
      compact({
        type: "tool.completed" as const,
        toolCallId,
        name,
        output: isError ? (fieldStr(toolState, "error") ?? "error") : fieldStr(toolState, "output"),
        exitCode: fieldNum(metadata, "exit"),
        isError,
        durationMs: start !== undefined && end !== undefined && end >= start ? end - start : undefined,
        time,
      }),
    );
    const change = isError ? undefined : fileChange(name, toolInput, metadata);
    if (change !== undefined)
      out.push(compact({ type: "file.changed" as const, changes: [change], toolCallId, status: "success" as const, time }));
    return out;
  }

  decodeJson(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const envelope: Wire<PartEnvelope> = v;
    const time = isoFromEpochMs(fieldNum(envelope, "timestamp"));
    const part = fieldObj(envelope, "part");
    const out: AgentEventDraft[] = [];
    // OpenCode has no init record; the first line with a sessionID starts the session.
    const sessionId = fieldStr(envelope, "sessionID") ?? fieldStr(part, "sessionID");
    if (!this.sessionStarted && sessionId !== undefined) {
      this.sessionStarted = true;
      out.push(compact({ type: "session.started" as const, agent: "opencode", sessionId, time }));
    }
    switch (v.type) {
      case "step_start": {
        out.push(...this.closeTurn("error", time, "the step ended without step_finish"));
        this.turnId = fieldStr(fieldObj(asWire<StepStart>(v), "part"), "id") ?? this.state.nextId("step");
        out.push(compact({ type: "turn.started" as const, turnId: this.turnId, time }));
        return out;
      }
      case "text":
      case "reasoning": {
        const kind = v.type === "text" ? "text" : "reasoning";
        const textPart = fieldObj(asWire<TextLike>(v), "part");
        const messageId = fieldStr(textPart, "id") ?? this.state.nextId(kind);
        out.push(...this.state.complete(messageId, fieldStr(textPart, "text") ?? "", "assistant", kind, { time }));
        return out;
      }
      case "tool_use":
        out.push(...this.toolUse(v, time));
        return out;
      case "step_finish": {
        if (this.turnId === undefined) {
          this.turnId = fieldStr(part, "id") ?? this.state.nextId("step");
          out.push(compact({ type: "turn.started" as const, turnId: this.turnId, time }));
        }
        const step = fieldObj(asWire<StepFinish>(v), "part");
        const tokens = fieldObj(step, "tokens");
        const cache = fieldObj(tokens, "cache");
        const usage =
          tokens === undefined
            ? undefined
            : usageFrom({
                inputTokens: fieldNum(tokens, "input"),
                outputTokens: fieldNum(tokens, "output"),
                reasoningTokens: fieldNum(tokens, "reasoning"),
                cacheReadTokens: fieldNum(cache, "read"),
                cacheWriteTokens: fieldNum(cache, "write"),
              });
        const id = this.turnId;
        this.turnId = undefined;
        // opencode reports usage and cost per step (one LLM call); each turn.completed carries its own step, and the summary adds them.
        out.push(
          compact({
            type: "turn.completed" as const,
            turnId: id,
            status: "success" as const,
            usage,
            costUsd: fieldNum(step, "cost"),
            time,
          }),
        );
        this.last = { reason: fieldStr(step, "reason") ?? "", time, line: context.line };
        return out;
      }
      case "error": {
        const error = fieldObj(asWire<OpencodeError>(v), "error");
        const name = fieldStr(error, "name");
        const message = fieldStr(fieldObj(error, "data"), "message") ?? name ?? "unknown error";
        out.push(...this.closeTurn("error", time, message));
        out.push(compact({ type: "error" as const, scope: "session" as const, message, code: name, fatal: true, time }));
        this.last = { error: message, time, line: context.line };
        return out;
      }
      case "done": {
        out.push(...this.closeTurn("error", time, "the step ended without step_finish"), ...this.state.closeAll());
        const error = this.last?.error;
        this.done = true;
        out.push(
          compact({
            type: "session.completed" as const,
            status: error === undefined ? ("success" as const) : ("error" as const),
            error,
            time,
            details: compact({ reason: fieldStr(asWire<Done>(v), "reason"), rejected: fieldArr(asWire<Done>(v), "rejected") }),
          }),
        );
        return out;
      }
      default:
        context.report({ code: "unknown-record", message: `unknown opencode record type ${JSON.stringify(v.type)}` });
        out.push(unknownRecord(v, `unknown record type ${JSON.stringify(v.type)}`));
        return out;
    }
  }
}
