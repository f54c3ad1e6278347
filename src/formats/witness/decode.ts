// Source: the Witness Forge NDJSON Event Specification v1.0 (Minato-Makoto/witness-forge
// NDJSON_SPEC.md), and what `convert --to witness` writes; docs/dialects/witness.md.
import type { AgentEventDraft, ErrorScope, JsonObject, ToolKind } from "../../model/events.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, obj } from "../../dialect/json.ts";
import { field, fieldBool, fieldNum, fieldStr, type Wire } from "../../dialect/wire.ts";
import { embeddedEvent, replayEmbedded } from "../../dialect/embedded.ts";
import { StreamStateReader } from "../../dialect/messages.ts";
import { usageFromWire } from "../../dialect/usage-wire.ts";
import type { WitnessMeta, WitnessRecord } from "./wire.ts";

const TYPES = new Set(["analysis", "final", "metric", "tool_call", "tool_result", "error", "debug"]);
const FIELDS = new Set(["type", "content", "brain", "meta"]);
const SCOPES = new Set<string>(["session", "turn", "tool", "api", "stream"]);
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

/**
 * A Witness line has only the four spec fields, a known type and string content. The closed key set
 * is what keeps it from claiming Gemini `message` lines or other `{type, content}` records.
 */
function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  if (typeof v.type !== "string" || !TYPES.has(v.type) || typeof v.content !== "string") return false;
  for (const key of Object.keys(v)) if (!FIELDS.has(key)) return false;
  const brain = v.brain;
  const meta = v.meta;
  return (
    (brain === undefined || brain === null || typeof brain === "string") &&
    (meta === undefined || meta === null || (typeof meta === "object" && !Array.isArray(meta)))
  );
}

/** Witness Forge NDJSON events. */
export const witness: Dialect = {
  name: "witness",
  description: "Witness Forge NDJSON events {type, content, brain, meta}",
  detect,
  // The spec's renderer shows a line that is not JSON as it is: the decoder reads text lines, broken JSON included.
  readsText: true,
  createDecoder: () => witnessDecoder(new WitnessDecoderState()),
};

/**
 * JSON lines go to the reader. Any other line is a `text` event: the spec's fallback mode ("Invalid JSON:
 * display raw text"), also for a line that looks like JSON and does not parse (other JSON dialects drop it with
 * its warning); stripped, as the spec's renderer strips each line.
 */
function witnessDecoder(reader: WitnessDecoderState): DialectDecoder {
  let sawJson = false;
  return {
    decode(record, context) {
      if (record.kind === "json") {
        sawJson = true;
        return reader.decodeJson(record.value, context);
      }
      const text = record.invalid === true ? record.text.trim() : record.text;
      return [{ type: "text", text, position: sawJson ? "interleaved" : "preamble" }];
    },
    end: () => reader.end(),
  };
}

/** What one witness reader remembers (open tool calls), and its handlers. */
class WitnessDecoderState extends StreamStateReader {
  /** Open tool calls in call order, for a `tool_result` that names no id (the spec reserves the type but defines no fields). */
  readonly openTools: string[] = [];

  sessionOf(meta: Wire<WitnessMeta> | undefined): { sessionId?: string } {
    const sessionId = fieldStr(meta, "session_id");
    return sessionId === undefined ? {} : { sessionId };
  }

  message(w: WitnessRecord, meta: Wire<WitnessMeta> | undefined): AgentEventDraft[] {
    const kind = w.type === "final" ? "text" : fieldBool(meta, "redacted") === true ? "redacted_reasoning" : "reasoning";
    const channel = typeof w.brain === "string" ? w.brain : undefined;
    const id = this.state.nextId(w.type);
    return this.state.complete(
      id,
      w.content,
      "assistant",
      kind,
      compact({
        ...this.sessionOf(meta),
        channel,
        contentType: fieldStr(meta, "content_type"),
        language: fieldStr(meta, "language"),
        signature: fieldStr(meta, "signature"),
      }),
    );
  }

  toolCall(w: WitnessRecord, meta: Wire<WitnessMeta> | undefined): AgentEventDraft[] {
    const toolCallId = fieldStr(meta, "tool_call_id") ?? this.state.nextId("tool");
    const name = fieldStr(meta, "name") ?? (w.content === "" ? "unknown" : w.content);
    const kind = fieldStr(meta, "kind");
    this.state.toolStarted(toolCallId, name);
    this.openTools.push(toolCallId);
    return [
      compact({
        type: "tool.started" as const,
        toolCallId,
        name,
        kind: kind !== undefined && TOOL_KINDS.has(kind) ? (kind as ToolKind) : undefined,
        input: field(meta, "input"),
        server: fieldStr(meta, "server"),
        description: fieldStr(meta, "description"),
        ...this.sessionOf(meta),
      }),
    ];
  }

  toolResult(w: WitnessRecord, meta: Wire<WitnessMeta> | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    const toolCallId = fieldStr(meta, "tool_call_id") ?? this.openTools[this.openTools.length - 1] ?? this.state.nextId("tool");
    let name = fieldStr(meta, "name") ?? this.state.toolName(toolCallId);
    if (this.state.toolName(toolCallId) === undefined) {
      // A result whose call we never saw: start it, so the pair stays valid.
      name ??= "unknown";
      out.push(compact({ type: "tool.started" as const, toolCallId, name, ...this.sessionOf(meta) }));
    }
    this.state.toolCompleted(toolCallId);
    const at = this.openTools.lastIndexOf(toolCallId);
    if (at >= 0) this.openTools.splice(at, 1);
    const exitCode = fieldNum(meta, "exit_code");
    out.push(
      compact({
        type: "tool.completed" as const,
        toolCallId,
        name,
        output: w.content,
        result: field(meta, "result"),
        exitCode,
        isError: fieldBool(meta, "is_error") ?? (exitCode !== undefined && exitCode !== 0),
        durationMs: fieldNum(meta, "duration_ms"),
        ...this.sessionOf(meta),
      }),
    );
    return out;
  }

  debug(w: WitnessRecord, meta: Wire<WitnessMeta> | undefined): AgentEventDraft[] {
    const event = embeddedEvent(field(meta, "event"));
    if (event === undefined)
      return [compact({ type: "notice" as const, kind: "debug", level: "info" as const, text: w.content, details: meta })];
    // Messages and tool calls go through the stream state, so each has its start and is closed at the end.
    return replayEmbedded(this.state, event);
  }

  decodeJson(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const w = v as unknown as WitnessRecord;
    const meta: Wire<WitnessMeta> | undefined = obj(v, "meta");
    if (typeof w.content !== "string") {
      context.report({ code: "schema-mismatch", message: "witness event without a string content" });
      return [unknownRecord(v, "witness event without a string content")];
    }
    switch (w.type) {
      case "analysis":
      case "final":
        return this.message(w, meta);
      case "metric": {
        const scope = fieldStr(meta, "scope");
        if (w.content === "usage" && (scope === "delta" || scope === "cumulative")) {
          const figures = usageFromWire(meta);
          if (figures !== undefined)
            return [
              compact({
                type: "usage" as const,
                usage: figures,
                scope: scope as "delta" | "cumulative",
                costUsd: fieldNum(meta, "cost_usd"),
                model: fieldStr(meta, "model"),
                ...this.sessionOf(meta),
              }),
            ];
        }
        return [
          {
            type: "metric",
            name: w.content === "" ? "metric" : w.content,
            ...(w.content === "" ? {} : { text: w.content }),
            values: meta ?? {},
          },
        ];
      }
      case "tool_call":
        return this.toolCall(w, meta);
      case "tool_result":
        return this.toolResult(w, meta);
      case "error": {
        const scope = fieldStr(meta, "scope");
        return [
          compact({
            type: "error" as const,
            scope: scope !== undefined && SCOPES.has(scope) ? (scope as ErrorScope) : "session",
            message: w.content,
            code: fieldStr(meta, "code"),
            fatal: fieldBool(meta, "fatal"),
            toolCallId: fieldStr(meta, "tool_call_id"),
            turnId: fieldStr(meta, "turn_id"),
            ...this.sessionOf(meta),
          }),
        ];
      }
      case "debug":
        return this.debug(w, meta);
      default: {
        // The spec allows new types and shows them as plain text (white, no prefix): an info issue, and the
        // content as what views show; the record is kept whole (`raw`), so witness → witness writes it back.
        const reason = `unknown witness event type ${JSON.stringify(w.type)}`;
        context.report({ code: "unknown-record", severity: "info", message: `${reason}: shown as plain text` });
        return [{ type: "unknown", raw: v, reason, text: w.content }];
      }
    }
  }
}
