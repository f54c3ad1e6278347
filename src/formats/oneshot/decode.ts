// Source: the oneshot "Unified Streaming JSON Schema Specification" (jjurach/oneshot, PROPOSED
// 2026-01-21), and what `convert --to oneshot` writes; docs/dialects/oneshot.md.
import { emptyUsage } from "../../model/usage.ts";
import type { AgentEventDraft, JsonObject, MessageRole, SessionStatus, ToolKind } from "../../model/events.ts";
import { isoFromEpochMs } from "../../dialect/time.ts";
import { type DecodeContext, type Dialect, jsonRecordDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, obj } from "../../dialect/json.ts";
import { embeddedEvent, replayEmbedded } from "../../dialect/embedded.ts";
import { StreamStateReader } from "../../dialect/messages.ts";
import { usageFromWire } from "../../dialect/usage-wire.ts";
import { fieldBool, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import type { OneshotData, OneshotPacket } from "./wire.ts";

/** Executor → our agent product names (the inverse of ./encode.ts); `direct` is no agent. */
const AGENTS: Record<string, string | undefined> = {
  claude: "claude-code",
  gemini: "gemini-cli",
  cursor: "cursor-agent",
  qwen: "qwen-code",
  direct: undefined,
};
const ROLES = new Set<string>(["assistant", "user", "system", "developer"]);
const TOOL_KINDS = new Set<string>([
  "command",
  "file_read",
  "file_write",
  "file_edit",
  "search",
  "web_search",
  "web_fetch",
  "mcp",
  "subagent",
  "todo",
  "other",
]);
/** The spec's tool vocabulary back to our kinds. */
const CATEGORY_KINDS: Record<string, ToolKind> = { bash: "command", edit: "file_edit", read: "file_read", write: "file_write" };

function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  return (
    typeof v.executor === "string" &&
    typeof v.oneshot_id === "string" &&
    typeof v.type === "string" &&
    typeof v.is_heartbeat === "boolean" &&
    (typeof v.ts_ms === "number" || typeof v.timestamp === "number")
  );
}

/** The packet's instant as RFC 3339; 0 (what our writer writes before any time is known) is no time. */
function timeOf(v: Wire<OneshotPacket>): string | undefined {
  const ms = fieldNum(v, "ts_ms") ?? (fieldNum(v, "timestamp") === undefined ? undefined : (fieldNum(v, "timestamp") as number) * 1000);
  return ms === undefined || ms <= 0 ? undefined : isoFromEpochMs(Math.round(ms));
}

/** oneshot unified activity packets. */
export const oneshot: Dialect = {
  name: "oneshot",
  description: "oneshot unified activity packets",
  detect,
  createDecoder: () => jsonRecordDecoder(new OneshotDecoderState()),
};

/** What one oneshot reader remembers, and its handlers. */
class OneshotDecoderState extends StreamStateReader {
  readonly openTools: { id: string; tool: string }[] = [];
  sessionStarted = false;

  /** A oneshot log is one session: say so once, from the packet, before its first activity. */
  startSession(v: Wire<OneshotPacket>, time: string | undefined): AgentEventDraft[] {
    if (this.sessionStarted) return [];
    this.sessionStarted = true;
    const id = fieldStr(v, "oneshot_id");
    // Our writer uses "unknown" when the input named no session: then there is nothing to say.
    if (id === undefined || id === "unknown") return [];
    const executor = fieldStr(v, "executor") ?? "unknown";
    const agent = Object.hasOwn(AGENTS, executor) ? AGENTS[executor] : executor;
    return [compact({ type: "session.started" as const, sessionId: id, agent, details: { executor }, time })];
  }

  toolUse(data: Wire<OneshotData>, session: { sessionId?: string }, time: string | undefined): AgentEventDraft[] {
    const tool = fieldStr(data, "tool") ?? "unknown";
    const toolCallId = fieldStr(data, "id") ?? this.state.nextId("tool");
    const name = fieldStr(data, "name") ?? tool;
    const kind = fieldStr(data, "kind");
    const command = fieldStr(data, "command");
    this.state.toolStarted(toolCallId, name);
    this.openTools.push({ id: toolCallId, tool });
    return [
      compact({
        type: "tool.started" as const,
        toolCallId,
        name,
        kind:
          kind !== undefined && TOOL_KINDS.has(kind)
            ? (kind as ToolKind)
            : Object.hasOwn(CATEGORY_KINDS, tool)
              ? CATEGORY_KINDS[tool]
              : undefined,
        input: data.input ?? (command === undefined ? undefined : { command }),
        server: fieldStr(data, "server"),
        description: fieldStr(data, "reason"),
        time,
        ...session,
      }),
    ];
  }

  toolOutput(data: Wire<OneshotData>, session: { sessionId?: string }, time: string | undefined): AgentEventDraft[] {
    const tool = fieldStr(data, "tool") ?? "unknown";
    // Without an id, the latest open call of the same tool (the spec's packets carry none).
    const match = [...this.openTools].reverse().find((t) => t.tool === tool) ?? this.openTools[this.openTools.length - 1];
    const toolCallId = fieldStr(data, "id") ?? match?.id ?? this.state.nextId("tool");
    const out: AgentEventDraft[] = [];
    let name = fieldStr(data, "name") ?? this.state.toolName(toolCallId);
    if (this.state.toolName(toolCallId) === undefined) {
      name ??= tool;
      out.push(compact({ type: "tool.started" as const, toolCallId, name, time, ...session }));
    }
    this.state.toolCompleted(toolCallId);
    const at = this.openTools.findIndex((t) => t.id === toolCallId);
    if (at >= 0) this.openTools.splice(at, 1);
    const exitCode = fieldNum(data, "exit_code");
    out.push(
      compact({
        type: "tool.completed" as const,
        toolCallId,
        name,
        output: fieldStr(data, "content"),
        result: data.result,
        exitCode,
        isError: fieldBool(data, "is_error") ?? (exitCode !== undefined && exitCode !== 0),
        durationMs: fieldNum(data, "duration_ms"),
        time,
        ...session,
      }),
    );
    return out;
  }

  completion(data: Wire<OneshotData>, session: { sessionId?: string }, time: string | undefined): AgentEventDraft {
    const stats = fieldObj(data, "stats");
    const wireUsage = fieldObj(stats, "usage");
    const status: SessionStatus =
      fieldStr(data, "status") === "success" ? "success" : fieldBool(data, "interrupted") === true ? "interrupted" : "error";
    return compact({
      type: "session.completed" as const,
      status,
      error: fieldStr(data, "error"),
      finalText: fieldStr(data, "result"),
      // Our writer nests usage (all-null figures included); other producers may put the figures in stats itself.
      usage: wireUsage === undefined ? usageFromWire(stats) : (usageFromWire(wireUsage) ?? emptyUsage()),
      costUsd: fieldNum(stats, "cost_usd"),
      durationMs: fieldNum(stats, "duration_ms"),
      turns: fieldNum(stats, "turns"),
      details: fieldObj(data, "details"),
      time,
      ...session,
    });
  }

  decodeJson(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const p = v as unknown as OneshotPacket;
    const packet: Wire<OneshotPacket> = v;
    const time = timeOf(packet);
    const data: Wire<OneshotData> = obj(v, "data") ?? {};
    const sessionId = fieldStr(data, "session_id");
    const session = sessionId === undefined ? {} : { sessionId };
    if (p.is_heartbeat === true) return [compact({ type: "heartbeat" as const, idleMs: fieldNum(data, "idle_ms"), time })];
    if (p.type === "preamble") {
      const text = typeof p.data === "string" ? p.data : (fieldStr(data, "text") ?? JSON.stringify(p.data));
      // The producer calls it preamble; our writer sends text that came between records as an `event`.
      return [compact({ type: "text" as const, text, position: "preamble" as const, time })];
    }
    if (p.type === "event") {
      const event = embeddedEvent(data);
      if (event === undefined) {
        context.report({ code: "unknown-record", message: "oneshot event packet that does not carry an agentstream event" });
        return [unknownRecord(v, "oneshot event packet that does not carry an agentstream event")];
      }
      if (event.type === "session.started") this.sessionStarted = true;
      return replayEmbedded(this.state, event);
    }
    // Our writer's Aider commits and edits: a tool_output that carries the event it stands for.
    const carried = p.type === "tool_output" ? embeddedEvent(obj(data, "event")) : undefined;
    if (carried !== undefined) return [...this.startSession(packet, time), ...replayEmbedded(this.state, carried)];
    const known = ["thought", "message", "tool_use", "tool_output", "completion"];
    if (!known.includes(p.type)) {
      context.report({ code: "unknown-record", message: `unknown oneshot packet type ${JSON.stringify(p.type)}` });
      return [unknownRecord(v, `unknown oneshot packet type ${JSON.stringify(p.type)}`)];
    }
    const out = this.startSession(packet, time);
    const meta = compact({
      ...session,
      time,
      channel: fieldStr(data, "channel"),
      contentType: fieldStr(data, "content_type"),
      language: fieldStr(data, "language"),
    });
    switch (p.type) {
      case "thought": {
        // `kind: "text"`: prose the seed files as a thought (Aider's), which our writer marks so.
        const kind = fieldBool(data, "redacted") === true ? "redacted_reasoning" : fieldStr(data, "kind") === "text" ? "text" : "reasoning";
        out.push(
          ...this.state.complete(
            this.state.nextId("thought"),
            fieldStr(data, "text") ?? "",
            "assistant",
            kind,
            compact({ ...meta, signature: fieldStr(data, "signature") }),
          ),
        );
        return out;
      }
      case "message": {
        const role = fieldStr(data, "role") ?? "assistant";
        const text = fieldStr(data, "content") ?? "";
        out.push(
          ...this.state.complete(this.state.nextId("message"), text, ROLES.has(role) ? (role as MessageRole) : "assistant", "text", meta),
        );
        return out;
      }
      case "tool_use":
        out.push(...this.toolUse(data, session, time));
        return out;
      case "tool_output":
        out.push(...this.toolOutput(data, session, time));
        return out;
      default:
        out.push(this.completion(data, session, time));
        return out;
    }
  }
}
