// Source of truth: the Witness Forge NDJSON Event Specification v1.0 (Minato-Makoto/witness-forge
// NDJSON_SPEC.md; read from ../shared/seeds/witness-forge-ndjson-event-spec.md). Mapping, choices
// and round-trip losses: docs/formats/witness.md.
//
// Witness events are whole steps, not streams: one `analysis` or `final` per completed message
// (`message.completed` carries the whole repaired text), so started/delta events write nothing.
// Output is UTF-8 with no ASCII escaping (the spec's ensure_ascii=False), content never truncated.
import type { AgentEvent, EventOf, JsonObject, JsonValue, MessageKind, MessageRole } from "../../model/events.ts";
import { usageToWire } from "../../encoding/usage.ts";
import { describeEvent } from "../../encoding/describe.ts";
import { eventBody } from "../../encoding/event-body.ts";
import { createDispatch } from "../../encoding/dispatch.ts";
import { createToolInputJoiner } from "../../encoding/tool-input.ts";
import type { EncoderOptions, RecordEncoder } from "../../encoding/record-encoder.ts";
import type { WitnessRecord, WitnessType } from "./wire.ts";

interface OpenMessage {
  role: MessageRole;
  kind: MessageKind;
  channel: string | undefined;
  sessionId: string | undefined;
  parts: string[];
}

/** `{...}` without the keys whose value is undefined, so absent stays absent. */
function defined(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

function line(record: WitnessRecord): WitnessRecord[] {
  return [record];
}

/** The streaming encoder for `--to witness` (`dualBrain`: `--dual-brain`). */
export function createWitnessEncoder(options: EncoderOptions = {}): RecordEncoder<WitnessRecord> {
  const encoder = new WitnessEncoderState(options.dualBrain === true);
  return {
    encode(event) {
      const out: WitnessRecord[] = [];
      for (const ready of encoder.joiner.push(event)) out.push(...encoder.writeOrCopy(ready));
      return out;
    },
    end() {
      const out: WitnessRecord[] = [];
      for (const ready of encoder.joiner.end()) out.push(...encoder.writeOrCopy(ready));
      // A message that started and never completed still said something: write what streamed, marked incomplete.
      for (const [messageId, message] of encoder.open) {
        const text = message.parts.join("");
        if (message.role === "assistant") {
          const type = message.kind === "text" ? "final" : "analysis";
          out.push(
            encoder.record(
              type,
              text,
              defined({ session_id: encoder.sessionMeta(message.sessionId), incomplete: true }),
              encoder.brainOf(type, message.channel),
            ),
          );
        } else {
          const body = defined({
            type: "message.completed",
            messageId,
            role: message.role,
            kind: message.kind,
            text,
            sessionId: message.sessionId,
          });
          out.push({ type: "debug", content: text, meta: { event: body, incomplete: true } });
        }
      }
      encoder.open.clear();
      return out;
    },
  };
}

/** A Witness record as read (an event's `raw`, from the `witness` reader): a JSON object with a string `type` and `content`. */
function witnessRecordOf(event: AgentEvent): WitnessRecord | undefined {
  if (event.source?.dialect !== "witness") return undefined;
  const raw = event.raw;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const record = raw as JsonObject;
  return typeof record.type === "string" && typeof record.content === "string" ? (record as unknown as WitnessRecord) : undefined;
}

/** What one witness writer remembers, and its handlers. */
class WitnessEncoderState {
  readonly joiner = createToolInputJoiner();
  readonly open = new Map<string, OpenMessage>();
  rootSessionId: string | undefined;
  /** The last Witness record copied through: the other events read from it write nothing. */
  copied: WitnessRecord | undefined;

  readonly dualBrain: boolean;

  constructor(dualBrain: boolean) {
    this.dualBrain = dualBrain;
  }

  /**
   * witness → witness: a record read from a Witness stream is written back as it was (its `meta`, decode
   * parameters and scores included, and `brain` on every type, which our events have no field for), once, by
   * the first of its events that writes a line. The events' `raw` carries it (`convert` keeps it for this writer).
   */
  writeOrCopy(event: AgentEvent): WitnessRecord[] {
    const out = this.write(event);
    const source = witnessRecordOf(event);
    if (source === undefined) return out;
    if (source === this.copied) return [];
    if (out.length === 0) return out;
    this.copied = source;
    const type = source.type;
    if (!this.dualBrain || (type !== "analysis" && type !== "final")) return [source];
    return [{ ...source, brain: type === "analysis" ? "path1" : "path2" }];
  }

  /** The `brain` of an `analysis` / `final` line: the seed's dual-brain labels with `--dual-brain`, else the message's channel. */
  brainOf(type: "analysis" | "final", channel: string | undefined): string | undefined {
    if (!this.dualBrain) return channel;
    return type === "analysis" ? "path1" : "path2";
  }

  readonly write = createDispatch<WitnessRecord[]>(
    {
      "session.started": (event) => {
        // The same rule as the reader's pipeline, so an id left out here is the one it fills back in.
        if (event.parentSessionId === undefined && event.sessionId !== undefined) this.rootSessionId = event.sessionId;
        return this.debug(event);
      },
      "message.started": (event) => {
        this.open.set(event.messageId, {
          role: event.role,
          kind: event.kind,
          channel: event.channel,
          sessionId: event.sessionId,
          parts: [],
        });
        return [];
      },
      "message.delta": (event) => {
        this.open.get(event.messageId)?.parts.push(event.text);
        return [];
      },
      "message.completed": (event) => {
        this.open.delete(event.messageId);
        return this.message(event);
      },
      "tool.started": (event) =>
        line(
          this.record(
            "tool_call",
            event.name,
            defined({
              tool_call_id: event.toolCallId,
              name: event.name,
              kind: event.kind,
              input: event.input,
              server: event.server,
              description: event.description,
              session_id: this.sessionMeta(event.sessionId),
            }),
          ),
        ),
      "tool.completed": (event) =>
        line(
          this.record(
            "tool_result",
            event.output ?? "",
            defined({
              tool_call_id: event.toolCallId,
              name: event.name,
              is_error: event.isError,
              exit_code: event.exitCode,
              duration_ms: event.durationMs,
              result: event.result,
              session_id: this.sessionMeta(event.sessionId),
            }),
          ),
        ),
      error: (event) =>
        line(
          this.record(
            "error",
            event.message,
            defined({
              scope: event.scope,
              code: event.code,
              fatal: event.fatal,
              tool_call_id: event.toolCallId,
              turn_id: event.turnId,
              session_id: this.sessionMeta(event.sessionId),
            }),
          ),
        ),
      // The spec's metric meta is the values themselves (k, state, temperature, ...); the label is the content.
      metric: (event) => line({ type: "metric", content: event.text ?? event.name, meta: event.values }),
      usage: (event) =>
        line({
          type: "metric",
          content: "usage",
          meta: defined({
            ...usageToWire(event.usage),
            scope: event.scope,
            cost_usd: event.costUsd,
            model: event.model,
            session_id: this.sessionMeta(event.sessionId),
          }),
        }),
    },
    // Everything Witness has no type for travels as `debug`, the whole event in its meta.
    (event) => this.debug(event),
  );

  /** `session_id` in meta only when it is not the root session's: the root is implied, so most lines stay small. */
  sessionMeta(sessionId: string | undefined): string | undefined {
    return sessionId !== undefined && sessionId !== this.rootSessionId ? sessionId : undefined;
  }

  record(type: WitnessType, content: string, meta: JsonObject, brain?: string): WitnessRecord {
    const out: WitnessRecord = { type, content };
    if (brain !== undefined) out.brain = brain;
    if (Object.keys(meta).length > 0) out.meta = meta;
    return out;
  }

  debug(event: AgentEvent): WitnessRecord[] {
    return line({ type: "debug", content: describeEvent(event), meta: { event: eventBody(event) } });
  }

  message(event: EventOf<"message.completed">): WitnessRecord[] {
    // Witness has no type for what the user, system or developer said; it travels as `debug`.
    if (event.role !== "assistant") return this.debug(event);
    const meta = defined({
      session_id: this.sessionMeta(event.sessionId),
      content_type: event.contentType,
      language: event.language,
      redacted: event.kind === "redacted_reasoning" ? true : undefined,
      signature: event.signature,
    });
    const type = event.kind === "text" ? "final" : "analysis";
    return line(this.record(type, event.text, meta, this.brainOf(type, event.channel)));
  }
}
