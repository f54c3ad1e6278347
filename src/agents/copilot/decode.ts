// Source: GitHub Copilot CLI 1.0.102: `copilot -p <prompt> --output-format json` and its saved sessions, ~/.copilot/session-state/<sessionId>/events.jsonl; versions and quirks: docs/dialects/copilot.md
import type { AgentEventDraft, JsonObject, JsonValue, ToolKind } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import { copilotUsageKey } from "../../model/usage-keys.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, obj, str } from "../../dialect/json.ts";
import { field, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";

/**
 * Every line is one session event `{type, data, id, timestamp, parentId, ephemeral?}`: the JSON output prints them
 * as they happen (the `ephemeral` ones too: deltas, progress), the session file keeps the lasting ones plus
 * `session.start`, `system.message`, `session.usage_record` and `session.shutdown`. The output ends with a `result`
 * line of its own shape.
 */
interface CopilotEvent {
  type: string;
  data?: JsonObject;
  id?: string;
  timestamp?: string;
  parentId?: string | null;
  ephemeral?: boolean;
}
interface SessionStartData {
  sessionId?: string;
  copilotVersion?: string;
  selectedModel?: string;
  context?: { cwd?: string };
}
interface UserMessageData {
  messageId?: string;
  /** What the user typed (`transformedContent` is what the model got: with a date prefix). */
  content?: string;
}
interface AssistantMessageData {
  messageId?: string;
  model?: string;
  content?: string;
  reasoningText?: string;
  toolRequests?: ToolRequest[];
  apiCallId?: string;
}
interface ToolRequest {
  toolCallId?: string;
  name?: string;
  arguments?: JsonObject;
  intentionSummary?: string;
}
interface ToolCallDeltaData {
  toolCallId?: string;
  toolName?: string;
  inputDelta?: string;
}
interface ToolCompleteData {
  toolCallId?: string;
  success?: boolean;
  result?: { content?: string };
  /** A string, or `{message}`. */
  error?: JsonValue;
}
/** One model request's usage: `inputTokens` includes `cacheReadTokens` (OpenAI style, as the provider reported it). */
interface UsageRecordData {
  usage?: {
    model?: string;
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
    reasoningTokens?: number;
    apiCallId?: string;
  };
}
interface ResultLine {
  type: "result";
  sessionId?: string;
  exitCode?: number;
  usage?: { sessionDurationMs?: number };
}

/** Bookkeeping events that say nothing about the conversation (loaded skills, background tasks, model call timing, ...). */
const BOOKKEEPING = new Set([
  "session.skills_loaded",
  "session.mcp_servers_loaded",
  "session.tools_updated",
  "session.background_tasks_changed",
  "session.info",
  "session.model_change",
  "model.call_start",
  "model.call_finished",
  "model.call_final_result",
  "model.call_failure",
  "assistant.message_start",
  "assistant.idle",
  "system.message",
  "tool.execution_partial_result",
  // Named by the Copilot SDK's session events (not seen in 1.0.102's -p runs): lifecycle and context bookkeeping.
  "session.idle",
  "session.auto_mode_resolved",
  "session.usage_checkpoint",
  "session.handoff",
  "session.truncation",
  "session.compaction_start",
  "session.compaction_complete",
  "session.usage_info",
  "assistant.intent",
]);

/** Copilot CLI's tools by kind. */
function copilotToolKind(name: string): ToolKind {
  if (name === "bash" || name.endsWith("_bash")) return "command";
  if (name === "view") return "file_read";
  if (name === "create") return "file_write";
  if (name === "edit") return "file_edit";
  if (name === "grep" || name === "glob") return "search";
  if (name === "task") return "subagent";
  return "other";
}

export const copilot: Dialect = {
  name: "copilot",
  description: "GitHub Copilot CLI: copilot -p --output-format json, and its session files (~/.copilot/session-state)",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    const type = str(v, "type");
    if (type === undefined || obj(v, "data") === undefined || typeof v.timestamp !== "string") return false;
    return type === "session.start"
      ? str(obj(v, "data"), "producer") === "copilot-agent"
      : /^(session|user|assistant|tool|model)\.[a-z_]+$/.test(type) && typeof v.id === "string" && Object.hasOwn(v, "parentId");
  },
  createDecoder: createCopilotDecoder,
};

function createCopilotDecoder(): DialectDecoder {
  const decoding = new CopilotStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      return decoding.decodeJson(record.value, context);
    },
    end: () => decoding.finish(),
  };
}

class CopilotStream {
  readonly state = createStreamState();
  started = false;
  ended = false;
  sessionId = "";
  lastError: string | undefined;
  readonly counted = new Set<string>();
  /** The time of a `session.shutdown` not yet known to be the last (see `finish`). */
  shutdown: { readonly time: string | undefined } | undefined;
  /** The event type this stream's tokens come from (see `usage`). */
  usageType: string | undefined;
  readonly openTurns = new Set<string>();
  /** The reasoning being streamed (`assistant.reasoning_delta`), completed by the message that follows or by `assistant.reasoning`. */
  streamingReasoning: string | undefined;
  readonly reasoningDone = new Set<string>();

  reasoning(id: string, text: string, time: string | undefined): AgentEventDraft[] {
    if (this.reasoningDone.has(id)) return [];
    this.reasoningDone.add(id);
    if (this.streamingReasoning === id) this.streamingReasoning = undefined;
    return this.state.complete(id, text, "assistant", "reasoning", { time });
  }

  opening(v: Wire<CopilotEvent>): AgentEventDraft[] {
    if (this.started) return [];
    this.started = true;
    const data = fieldObj(v, "data") as Wire<SessionStartData> | undefined;
    const isStart = fieldStr(v, "type") === "session.start";
    if (isStart) this.sessionId = fieldStr(data, "sessionId") ?? "";
    return [
      compact({
        type: "session.started" as const,
        agent: "copilot-cli",
        agentVersion: isStart ? fieldStr(data, "copilotVersion") : undefined,
        sessionId: this.sessionId === "" ? undefined : this.sessionId,
        model: isStart ? fieldStr(data, "selectedModel") : undefined,
        cwd: isStart ? fieldStr(fieldObj(data, "context"), "cwd") : undefined,
        time: fieldStr(v, "timestamp"),
      }),
    ];
  }

  assistant(data: Wire<AssistantMessageData> | undefined, time: string | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    const id = fieldStr(data, "messageId") ?? this.state.nextId("assistant");
    const reasoning = fieldStr(data, "reasoningText");
    if (reasoning !== undefined && reasoning !== "")
      out.push(...this.reasoning(this.streamingReasoning ?? `${id}#reasoning`, reasoning, time));
    const content = fieldStr(data, "content") ?? "";
    if (content !== "" || this.state.isOpen(id)) out.push(...this.state.complete(id, content, "assistant", "text", { time }));
    for (const request of fieldItems(data, "toolRequests")) {
      const toolCallId = fieldStr(request, "toolCallId");
      if (toolCallId === undefined || this.state.toolName(toolCallId) !== undefined) continue;
      const name = fieldStr(request, "name") ?? "unknown";
      this.state.toolStarted(toolCallId, name);
      out.push(
        compact({
          type: "tool.started" as const,
          toolCallId,
          name,
          kind: copilotToolKind(name),
          input: field(request, "arguments"),
          description: fieldStr(request, "intentionSummary"),
          time,
        }),
      );
    }
    return out;
  }

  toolDelta(data: Wire<ToolCallDeltaData> | undefined, time: string | undefined): AgentEventDraft[] {
    const toolCallId = fieldStr(data, "toolCallId");
    if (toolCallId === undefined) return [];
    const out: AgentEventDraft[] = [];
    if (this.state.toolName(toolCallId) === undefined) {
      const name = fieldStr(data, "toolName") ?? "unknown";
      this.state.toolStarted(toolCallId, name);
      out.push(compact({ type: "tool.started" as const, toolCallId, name, kind: copilotToolKind(name), time }));
    }
    const text = fieldStr(data, "inputDelta");
    if (text !== undefined && text !== "") out.push(compact({ type: "tool.input.delta" as const, toolCallId, text, time }));
    return out;
  }

  toolComplete(data: Wire<ToolCompleteData> | undefined, time: string | undefined): AgentEventDraft[] {
    const toolCallId = fieldStr(data, "toolCallId");
    if (toolCallId === undefined) return [];
    const name = this.state.toolName(toolCallId) ?? "unknown";
    if (!this.state.toolCompleted(toolCallId)) return [];
    const error = field(data, "error");
    const errorText = typeof error === "string" ? error : str(obj(error), "message");
    const output = fieldStr(fieldObj(data, "result"), "content") ?? errorText;
    return [compact({ type: "tool.completed" as const, toolCallId, name, output, isError: fieldBool(data, "success") === false, time })];
  }

  /**
   * One request's tokens: a session file's `session.usage_record` (`data.usage`), or `assistant.usage` (`data`, the SDK's
   * ephemeral event). A stream counts the kind it met first, so a request reported both ways is counted once.
   */
  usage(v: Wire<CopilotEvent>, time: string | undefined): AgentEventDraft[] {
    const type = fieldStr(v, "type");
    this.usageType ??= type;
    if (type !== this.usageType) return [];
    const data = fieldObj(v, "data") as Wire<UsageRecordData> | undefined;
    const usage = type === "assistant.usage" ? (data as Wire<NonNullable<UsageRecordData["usage"]>> | undefined) : fieldObj(data, "usage");
    if (usage === undefined) return [];
    const key = copilotUsageKey(this.sessionId, fieldStr(usage, "apiCallId") ?? fieldStr(v, "id") ?? "");
    if (this.counted.has(key)) return [];
    this.counted.add(key);
    return [
      compact({
        type: "usage" as const,
        usage: usageFrom({
          inputTokens: fieldNum(usage, "inputTokens"),
          outputTokens: fieldNum(usage, "outputTokens"),
          cacheReadTokens: fieldNum(usage, "cacheReadTokens"),
          cacheWriteTokens: fieldNum(usage, "cacheWriteTokens"),
          reasoningTokens: fieldNum(usage, "reasoningTokens"),
        }),
        scope: "delta" as const,
        model: fieldStr(usage, "model"),
        time,
      }),
    ];
  }

  /** The end: the output's `result` line, or the session file's `session.shutdown`. */
  /**
   * The end of input: a session file's last `session.shutdown` ends the session. It is held until then because a
   * resumed session (`copilot --resume`) appends `session.resume` and more turns to the same file after it.
   */
  finish(): AgentEventDraft[] {
    const shutdown = this.shutdown;
    this.shutdown = undefined;
    if (shutdown === undefined) return this.state.closeAll();
    return this.end(this.lastError === undefined ? "success" : "error", shutdown.time);
  }

  end(status: "success" | "error", time: string | undefined, durationMs?: number): AgentEventDraft[] {
    if (this.ended) return [];
    this.ended = true;
    return [
      ...this.state.closeAll(),
      compact({ type: "session.completed" as const, status, error: status === "error" ? this.lastError : undefined, durationMs, time }),
    ];
  }

  decodeJson(value: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const v: Wire<CopilotEvent> = value;
    const type = fieldStr(v, "type") ?? "";
    const time = fieldStr(v, "timestamp");
    const data = fieldObj(v, "data");
    const out = type === "result" ? [] : this.opening(v);
    switch (type) {
      case "session.start":
        return out;
      case "user.message": {
        const user = data as Wire<UserMessageData> | undefined;
        return [
          ...out,
          ...this.state.complete(
            fieldStr(user, "messageId") ?? this.state.nextId("user"),
            fieldStr(user, "content") ?? "",
            "user",
            "text",
            { time },
          ),
        ];
      }
      case "assistant.turn_start": {
        const turnId = fieldStr(data, "turnId") ?? this.state.nextId("turn");
        this.openTurns.add(turnId);
        return [...out, compact({ type: "turn.started" as const, turnId, time })];
      }
      case "assistant.turn_end": {
        const turnId = fieldStr(data, "turnId") ?? "";
        if (!this.openTurns.delete(turnId)) return out;
        return [...out, compact({ type: "turn.completed" as const, turnId, time })];
      }
      case "assistant.message_delta": {
        const id = fieldStr(data, "messageId") ?? "assistant";
        return [...out, ...this.state.delta(id, fieldStr(data, "deltaContent") ?? "", "assistant", "text", { time })];
      }
      case "assistant.reasoning_delta": {
        const id = `reasoning:${fieldStr(data, "reasoningId") ?? "0"}`;
        if (this.reasoningDone.has(id)) return out;
        this.streamingReasoning = id;
        return [...out, ...this.state.delta(id, fieldStr(data, "deltaContent") ?? "", "assistant", "reasoning", { time })];
      }
      case "assistant.reasoning":
        return [...out, ...this.reasoning(`reasoning:${fieldStr(data, "reasoningId") ?? "0"}`, fieldStr(data, "content") ?? "", time)];
      case "assistant.message":
        return [...out, ...this.assistant(data as Wire<AssistantMessageData> | undefined, time)];
      case "assistant.tool_call_delta":
        return [...out, ...this.toolDelta(data as Wire<ToolCallDeltaData> | undefined, time)];
      case "tool.execution_start":
        return [
          ...out,
          ...this.toolDelta({ toolCallId: fieldStr(data, "toolCallId") ?? "", toolName: fieldStr(data, "toolName") ?? "unknown" }, time),
        ];
      case "tool.shell_output": {
        const toolCallId = fieldStr(data, "toolCallId");
        if (toolCallId === undefined) return out;
        return [...out, compact({ type: "tool.progress" as const, toolCallId, output: fieldStr(data, "text"), time })];
      }
      case "tool.execution_complete":
        return [...out, ...this.toolComplete(data as Wire<ToolCompleteData> | undefined, time)];
      case "session.usage_record":
      case "assistant.usage":
        return [...out, ...this.usage(v, time)];
      case "session.error": {
        this.lastError = fieldStr(data, "message") ?? "error";
        return [
          ...out,
          compact({ type: "error" as const, scope: "session" as const, message: this.lastError, code: fieldStr(data, "errorType"), time }),
        ];
      }
      case "session.shutdown":
        this.shutdown = { time };
        return out;
      case "session.resume":
        // The same session goes on in the same file: the shutdown before it was not its end.
        this.shutdown = undefined;
        return out;
      case "result": {
        const result = value as Wire<ResultLine>;
        const exitCode = fieldNum(result, "exitCode");
        return this.end(
          exitCode === 0 && this.lastError === undefined ? "success" : "error",
          time,
          fieldNum(fieldObj(result, "usage"), "sessionDurationMs"),
        );
      }
      case "session.task_complete": {
        const summary = fieldStr(data, "summary");
        return [
          ...out,
          compact({ type: "notice" as const, kind: "task_complete", level: "info" as const, text: summary ?? "task complete", time }),
        ];
      }
      default:
        if (BOOKKEEPING.has(type)) return out;
        // Hooks, skills and subagents report beside the conversation: kept as notices, not unknown.
        if (/^(hook|skill|subagent)\./.test(type))
          return [...out, compact({ type: "notice" as const, kind: type, level: "info" as const, text: type, details: data, time })];
        context.report({ code: "unknown-record", message: `unknown copilot event type ${JSON.stringify(type)}` });
        return [...out, unknownRecord(value as JsonValue as JsonObject, `unknown event type ${JSON.stringify(type)}`)];
    }
  }
}
