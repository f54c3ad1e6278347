// Source: the AAEP v1 specification (Agent Accessibility Event Protocol, Ramseyxlil/aaep at 04c3dab4:
// the envelope and the 12 core event schemas), and what `convert --to aaep` writes (its
// `extensions.agentstream`); docs/dialects/aaep.md.
import type { AgentEventDraft, JsonObject, SessionStatus } from "../../model/events.ts";
import { writtenTime } from "../../dialect/time.ts";
import { type DecodeContext, type Dialect, jsonRecordDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact } from "../../dialect/json.ts";
import { field, fieldArr, fieldBool, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import type { AaepEventFields, AaepExtension } from "./wire.ts";
import { embeddedEvent } from "../../dialect/embedded.ts";
import { StreamStateReader } from "../../dialect/messages.ts";

const AAEP_CONTEXT = "https://aaep-protocol.org/context/v1";

/** AAEP events carry the AAEP JSON-LD context (a string, or an array that starts with it) and an `evt_` id. */
function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  const context = v["@context"];
  const aaep = context === AAEP_CONTEXT || (Array.isArray(context) && context[0] === AAEP_CONTEXT);
  return aaep && typeof v.type === "string" && typeof v.event_id === "string" && typeof v.session_id === "string";
}

/** AAEP v1 events. */
export const aaep: Dialect = {
  name: "aaep",
  description: "AAEP v1 events (agent.output.streaming and the core events)",
  detect,
  createDecoder: () => jsonRecordDecoder(new AaepDecoderState()),
};

/** What one AAEP reader remembers (sessions, outputs, open calls), and its handlers. */
class AaepDecoderState extends StreamStateReader {
  /** AAEP session id → our session id (from the extension of its session.started; null: the writer's input named none). */
  readonly sessions = new Map<string, string | null>();
  /** Output key → message id, and whether it completed. */
  readonly outputs = new Map<string, { messageId: string; completed: boolean }>();
  /** Open calls by AAEP tool_call_id, and by tool name for calls without one. */
  readonly calls = new Map<string, string>();
  readonly byName = new Map<string, string[]>();

  sessionOf(v: Wire<AaepEventFields>): { sessionId?: string } {
    const aaepId = fieldStr(v, "session_id");
    if (aaepId === undefined) return {};
    const ours = this.sessions.get(aaepId);
    if (ours === null) return {};
    return { sessionId: ours ?? aaepId };
  }

  /** Our own events back from `extensions.agentstream.event`, through the stream state where they pair. */
  restore(event: AgentEventDraft, v: JsonObject): AgentEventDraft[] {
    switch (event.type) {
      case "session.started":
        this.sessions.set(fieldStr(v, "session_id") ?? "", event.sessionId ?? null);
        return [event];
      case "message.completed":
        return this.state.complete(
          event.messageId,
          event.text,
          event.role,
          event.kind,
          compact({
            sessionId: event.sessionId,
            time: event.time,
            channel: event.channel,
            contentType: event.contentType,
            language: event.language,
            signature: event.signature,
          }),
        );
      case "tool.started":
        this.state.toolStarted(event.toolCallId, event.name, event.sessionId);
        this.remember(v, event.toolCallId);
        return [event];
      case "tool.completed": {
        const out: AgentEventDraft[] = [];
        if (this.state.toolName(event.toolCallId) === undefined)
          out.push(
            compact({
              type: "tool.started" as const,
              toolCallId: event.toolCallId,
              name: event.name ?? "unknown",
              sessionId: event.sessionId,
              time: event.time,
            }),
          );
        this.state.toolCompleted(event.toolCallId);
        this.forget(v);
        out.push(event);
        return out;
      }
      default:
        return [event];
    }
  }

  remember(v: Wire<AaepEventFields>, toolCallId: string): void {
    const callId = fieldStr(v, "tool_call_id");
    if (callId !== undefined) this.calls.set(callId, toolCallId);
    else {
      const tool = fieldStr(v, "tool") ?? "";
      this.byName.set(tool, [...(this.byName.get(tool) ?? []), toolCallId]);
    }
  }

  /** The open call a completion belongs to (L1-TOOL-001: by tool_call_id, else the oldest open call of that tool). */
  forget(v: Wire<AaepEventFields>): string | undefined {
    const callId = fieldStr(v, "tool_call_id");
    if (callId !== undefined) {
      const id = this.calls.get(callId);
      this.calls.delete(callId);
      return id;
    }
    const list = this.byName.get(fieldStr(v, "tool") ?? "");
    return list?.shift();
  }

  chunk(
    v: Wire<AaepEventFields>,
    ext: Wire<AaepExtension> | undefined,
    time: string | undefined,
    context: DecodeContext,
  ): AgentEventDraft[] {
    const session = this.sessionOf(v);
    const key = fieldStr(v, "output_id") ?? `session:${fieldStr(v, "session_id") ?? ""}`;
    let output = this.outputs.get(key);
    if (output?.completed === true) {
      context.report({ code: "out-of-order", message: `a chunk for output "${key}" after its complete=true chunk (L1-STREAM-003)` });
      return [unknownRecord(v, "AAEP chunk after its output completed")];
    }
    if (output === undefined) {
      output = { messageId: fieldStr(ext, "message_id") ?? fieldStr(v, "output_id") ?? this.state.nextId("output"), completed: false };
      this.outputs.set(key, output);
    }
    const meta = compact({
      ...session,
      time,
      channel: fieldStr(ext, "channel"),
      contentType: fieldStr(v, "content_type"),
      language: fieldStr(v, "language"),
    });
    const out = this.state.delta(output.messageId, fieldStr(v, "chunk") ?? "", "assistant", "text", meta);
    if (fieldBool(v, "complete") === true) {
      output.completed = true;
      out.push(...this.state.complete(output.messageId, undefined, "assistant", "text", meta));
    }
    return out;
  }

  /** An AAEP event from another producer: what its fields say. */
  native(v: Wire<AaepEventFields>, type: string, time: string | undefined, context: DecodeContext): AgentEventDraft[] {
    const session = this.sessionOf(v);
    const summary = fieldStr(v, "summary_normal");
    switch (type) {
      case "aaep:agent.session.started": {
        const producer = fieldObj(v, "producer");
        const tools = fieldArr(v, "tools_available")?.filter((t): t is string => typeof t === "string");
        const details = compact({
          summary_normal: summary,
          request_text: fieldStr(v, "request_text"),
          requested_by: fieldStr(v, "requested_by"),
        });
        return [
          compact({
            type: "session.started" as const,
            agent: fieldStr(producer, "agent_id"),
            agentVersion: fieldStr(producer, "agent_version"),
            model: fieldStr(producer, "model"),
            tools,
            details: Object.keys(details).length > 0 ? (details as JsonObject) : undefined,
            time,
            ...session,
          }),
        ];
      }
      case "aaep:agent.session.completed":
        return [
          compact({
            type: "session.completed" as const,
            status: "success" as SessionStatus,
            durationMs: fieldNum(v, "duration_ms"),
            time,
            ...session,
          }),
        ];
      case "aaep:agent.session.errored":
        return [
          compact({
            type: "session.completed" as const,
            status: "error" as SessionStatus,
            error: summary,
            details: compact({ error_category: fieldStr(v, "error_category"), error_code: fieldStr(v, "error_code") }),
            time,
            ...session,
          }),
        ];
      case "aaep:agent.session.cancelled":
        return [
          compact({
            type: "session.completed" as const,
            status: "interrupted" as SessionStatus,
            error: summary,
            details: compact({ cancelled_by: fieldStr(v, "cancelled_by") }),
            time,
            ...session,
          }),
        ];
      case "aaep:agent.tool.invoked": {
        const toolCallId = fieldStr(v, "tool_call_id") ?? this.state.nextId("call");
        const name = fieldStr(v, "tool") ?? "unknown";
        this.state.toolStarted(toolCallId, name, session.sessionId);
        this.remember(v, toolCallId);
        return [compact({ type: "tool.started" as const, toolCallId, name, description: summary, time, ...session })];
      }
      case "aaep:agent.tool.completed": {
        const out: AgentEventDraft[] = [];
        const name = fieldStr(v, "tool") ?? "unknown";
        const toolCallId = this.forget(v) ?? fieldStr(v, "tool_call_id") ?? this.state.nextId("call");
        if (this.state.toolName(toolCallId) === undefined)
          out.push(compact({ type: "tool.started" as const, toolCallId, name, time, ...session }));
        this.state.toolCompleted(toolCallId);
        const status = fieldStr(v, "status");
        out.push(
          compact({
            type: "tool.completed" as const,
            toolCallId,
            name,
            output: status === "success" ? summary : (fieldStr(v, "error_message") ?? summary),
            isError: status !== "success",
            durationMs: fieldNum(v, "duration_ms"),
            result: status === "timeout" ? { status } : undefined,
            time,
            ...session,
          }),
        );
        return out;
      }
      case "aaep:agent.awaiting.confirmation":
      case "aaep:agent.awaiting.clarification":
      case "aaep:agent.handoff.requested":
      case "aaep:agent.state.changed":
      case "aaep:agent.progress.updated": {
        const kind = type.slice("aaep:agent.".length).replace(/\./g, "_");
        const text =
          summary ??
          fieldStr(v, "action") ??
          fieldStr(v, "question") ??
          fieldStr(v, "reason") ??
          (type === "aaep:agent.state.changed" ? `${fieldStr(v, "from_state") ?? "?"} → ${fieldStr(v, "to_state") ?? "?"}` : undefined) ??
          fieldStr(fieldObj(v, "progress"), "description") ??
          kind;
        const { "@context": _c, type: _t, event_id: _e, session_id: _s, timestamp: _ts, producer: _p, ...rest } = v;
        const level = v.urgency === "critical" ? ("warning" as const) : ("info" as const);
        return [compact({ type: "notice" as const, kind, level, text, details: rest, time, ...session })];
      }
      default:
        context.report({ code: "unknown-record", message: `unknown AAEP event type ${JSON.stringify(type)}` });
        return [unknownRecord(v, `unknown AAEP event type ${JSON.stringify(type)}`)];
    }
  }

  decodeJson(v: Wire<AaepEventFields>, context: DecodeContext): AgentEventDraft[] {
    const type = fieldStr(v, "type") ?? "";
    const time = writtenTime(fieldStr(v, "timestamp"));
    const ext = fieldObj(fieldObj(v, "extensions"), "agentstream");
    // What our writer added only to satisfy AAEP (a session start, an invocation, a terminal event) is not the agent's.
    if (fieldBool(ext, "synthesized") === true) {
      const aaepId = fieldStr(v, "session_id");
      if (type === "aaep:agent.session.started" && aaepId !== undefined && ext !== undefined && Object.hasOwn(ext, "session_id"))
        this.sessions.set(aaepId, fieldStr(ext, "session_id") ?? null);
      return [];
    }
    if (type === "aaep:agent.output.streaming") return this.chunk(v, ext, time, context);
    const event = embeddedEvent(field(ext, "event"));
    if (event !== undefined) return this.restore(event, v);
    return this.native(v, type, time, context);
  }
}
