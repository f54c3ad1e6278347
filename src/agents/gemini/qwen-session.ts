// Source: Qwen Code chat recording, ~/.qwen/projects/<cwd, non-alphanumerics as "-">/chats/<sessionId>.jsonl (0.24.4); versions and quirks: docs/dialects/qwen-session.md
import type { AgentEventDraft, JsonObject, JsonValue } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import { qwenUsageKey } from "../../model/usage-keys.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, obj, str, textOf } from "../../dialect/json.ts";
import { asWire, field, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { geminiFileChange, geminiPlan, geminiToolKind } from "./cli.ts";

/**
 * Qwen Code (a fork of Gemini CLI) records its chat as one JSON line per message, each with the line's `uuid`, its
 * `parentUuid`, `sessionId`, `timestamp`, `cwd` and `version`; the message is a Gemini `Content`
 * (`{role, parts}`), and a model line carries the Gemini-shaped `usageMetadata` of its request.
 */
interface QwenLine {
  uuid: string;
  parentUuid: string | null;
  sessionId: string;
  timestamp: string;
  type: "user" | "assistant" | "tool_result" | "system";
  /** `real_user`, `assistant_output`, `tool_result`, `system`. */
  provenance?: string;
  cwd?: string;
  version?: string;
  model?: string;
  message?: { role: string; parts: QwenPart[] };
  usageMetadata?: QwenUsage;
  /** On `tool_result` lines: the call's outcome (`status` "success" / "error" / "cancelled"). */
  toolCallResult?: { callId?: string; status?: string; resultDisplay?: JsonValue; error?: JsonValue };
  /** On `system` lines: `attribution_snapshot`, `ui_telemetry` (API responses, errors, tool calls), ... */
  subtype?: string;
  systemPayload?: { uiEvent?: QwenUiEvent };
}
/** A Gemini `Part`: text (a thought when `thought: true`), a function call, or a function response. */
interface QwenPart {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name?: string; args?: JsonObject };
  functionResponse?: { id?: string; name?: string; response?: { output?: string; error?: string } };
}
/**
 * Gemini's usage names, filled from the OpenAI-compatible usage by Qwen's converter: `promptTokenCount` is
 * `prompt_tokens` (cached included), `candidatesTokenCount` is `completion_tokens` (thoughts included),
 * `thoughtsTokenCount` is `reasoning_tokens`.
 */
interface QwenUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}
/** A `ui_telemetry` line's event: `qwen-code.api_error` is the one the conversation needs. */
interface QwenUiEvent {
  "event.name"?: string;
  error_message?: string;
  status_code?: number;
  model?: string;
}

const LINE_TYPES = new Set(["user", "assistant", "tool_result", "system"]);

/** Qwen Code saved chats. */
export const qwenSession: Dialect = {
  name: "qwen-session",
  description: "Qwen Code saved session files (~/.qwen/projects/*/chats)",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    const message = obj(v, "message");
    return (
      typeof v.uuid === "string" &&
      typeof v.sessionId === "string" &&
      typeof v.timestamp === "string" &&
      LINE_TYPES.has(str(v, "type") ?? "") &&
      (Array.isArray(message?.parts) || (v.type === "system" && obj(v, "systemPayload") !== undefined))
    );
  },
  createDecoder: createQwenSessionDecoder,
};

function createQwenSessionDecoder(): DialectDecoder {
  const decoding = new QwenSessionStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      return decoding.decodeJson(record.value, context);
    },
    end: () => decoding.state.closeAll(),
  };
}

/** The text of a function response: its `output`, else its `error`, else whatever text it holds. */
function responseText(part: Wire<QwenPart>): string | undefined {
  const response = fieldObj(fieldObj(part, "functionResponse"), "response");
  if (response === undefined) return undefined;
  return fieldStr(response, "output") ?? fieldStr(response, "error") ?? textOf(response);
}

class QwenSessionStream {
  readonly state = createStreamState();
  started = false;
  /** Tool call names by id: a response names its tool too, but the call's arguments are needed for a file change. */
  /** Requests whose usage was emitted (`qwenUsageKey`). */
  readonly counted = new Set<string>();
  readonly calls = new Map<string, { name: string; args: JsonValue | undefined }>();

  opening(v: Wire<QwenLine>): AgentEventDraft[] {
    if (this.started) return [];
    this.started = true;
    return [
      compact({
        type: "session.started" as const,
        agent: "qwen-code",
        agentVersion: fieldStr(v, "version"),
        sessionId: fieldStr(v, "sessionId"),
        cwd: fieldStr(v, "cwd"),
        time: fieldStr(v, "timestamp"),
      }),
    ];
  }

  user(v: Wire<QwenLine>, id: string, time: string | undefined): AgentEventDraft[] {
    const texts = fieldItems(fieldObj(v, "message"), "parts")
      .map((part) => fieldStr(part, "text"))
      .filter((text): text is string => text !== undefined);
    return this.state.complete(id, texts.join("\n"), "user", "text", { time });
  }

  assistant(v: Wire<QwenLine>, id: string, time: string | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    const parts = fieldItems(fieldObj(v, "message"), "parts");
    const thoughts = parts.filter((part) => fieldBool(part, "thought") === true).map((part) => fieldStr(part, "text") ?? "");
    if (thoughts.length > 0) out.push(...this.state.complete(`${id}#thought`, thoughts.join(""), "assistant", "reasoning", { time }));
    const text = parts
      .filter((part) => fieldBool(part, "thought") !== true)
      .map((part) => fieldStr(part, "text"))
      .filter((piece): piece is string => piece !== undefined)
      .join("");
    if (text !== "") out.push(...this.state.complete(id, text, "assistant", "text", { time }));
    for (const [index, part] of parts.entries()) {
      const call = fieldObj(part, "functionCall");
      if (call === undefined) continue;
      const toolCallId = fieldStr(call, "id") ?? `${id}#call-${index}`;
      const name = fieldStr(call, "name") ?? "unknown";
      const args = field(call, "args");
      this.calls.set(toolCallId, { name, args });
      this.state.toolStarted(toolCallId, name);
      out.push(compact({ type: "tool.started" as const, toolCallId, name, kind: geminiToolKind(name), input: args, time }));
      const plan = geminiPlan(name, args, time);
      if (plan !== undefined) out.push(plan);
    }
    const usage = fieldObj(v, "usageMetadata");
    const request = qwenUsageKey(fieldStr(v, "sessionId") ?? "", id);
    // A line copied again (a resumed or forked chat) is one request already counted, as `usage` counts it.
    if (usage !== undefined && !this.counted.has(request)) {
      this.counted.add(request);
      out.push(
        compact({
          type: "usage" as const,
          usage: usageFrom({
            inputTokens: fieldNum(usage, "promptTokenCount"),
            outputTokens: fieldNum(usage, "candidatesTokenCount"),
            cacheReadTokens: fieldNum(usage, "cachedContentTokenCount"),
            reasoningTokens: fieldNum(usage, "thoughtsTokenCount"),
          }),
          scope: "delta" as const,
          model: fieldStr(v, "model"),
          time,
        }),
      );
    }
    return out;
  }

  toolResult(v: Wire<QwenLine>, time: string | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    const outcome = fieldObj(v, "toolCallResult");
    for (const part of fieldItems(fieldObj(v, "message"), "parts")) {
      const response = fieldObj(part, "functionResponse");
      if (response === undefined) continue;
      const toolCallId = fieldStr(response, "id") ?? fieldStr(outcome, "callId");
      if (toolCallId === undefined) continue;
      const call = this.calls.get(toolCallId);
      const name = fieldStr(response, "name") ?? call?.name ?? "unknown";
      const status = fieldStr(outcome, "status");
      const isError = (status !== undefined && status !== "success") || fieldStr(fieldObj(response, "response"), "error") !== undefined;
      this.state.toolCompleted(toolCallId);
      out.push(compact({ type: "tool.completed" as const, toolCallId, name, output: responseText(part), isError, time }));
      if (!isError) {
        const diff = fieldStr(asWire<{ fileDiff?: string }>(field(outcome, "resultDisplay")), "fileDiff");
        const change = geminiFileChange(name, call?.args, toolCallId, diff);
        if (change !== undefined) out.push(time === undefined ? change : { ...change, time });
      }
    }
    return out;
  }

  /** `system` lines: an API error becomes an error; the rest (telemetry, snapshots) is bookkeeping the conversation does not show. */
  system(v: Wire<QwenLine>, time: string | undefined): AgentEventDraft[] {
    const ui = fieldObj(fieldObj(v, "systemPayload"), "uiEvent");
    if (fieldStr(ui, "event.name") !== "qwen-code.api_error") return [];
    return [compact({ type: "error" as const, scope: "turn" as const, message: fieldStr(ui, "error_message") ?? "API error", time })];
  }

  decodeJson(value: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const v: Wire<QwenLine> = value;
    const id = fieldStr(v, "uuid") ?? this.state.nextId("qwen");
    const time = fieldStr(v, "timestamp");
    const out = this.opening(v);
    switch (fieldStr(v, "type")) {
      case "user":
        return [...out, ...this.user(v, id, time)];
      case "assistant":
        return [...out, ...this.assistant(v, id, time)];
      case "tool_result":
        return [...out, ...this.toolResult(v, time)];
      case "system":
        return [...out, ...this.system(v, time)];
      default:
        context.report({ code: "unknown-record", message: `unknown qwen session record type ${JSON.stringify(value.type)}` });
        return [...out, unknownRecord(value, `unknown record type ${JSON.stringify(value.type)}`)];
    }
  }
}
