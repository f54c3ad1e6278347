// Source of truth: the AAEP v1 specification (Agent Accessibility Event Protocol, Ramseyxlil/aaep at
// 04c3dab4): the envelope and core event schemas (../shared/specs/aaep/schemas, transcribed in
// src/formats/aaep/schema.ts), the seed ../shared/seeds/aaep-agent-output-streaming.schema.json,
// and the conformance rules summarised in ../shared/docs/aaep-rules.md. Mapping, ids, positions,
// coalescing and round-trip losses: docs/formats/aaep.md.
//
// This product includes work from the AAEP project (https://github.com/Ramseyxlil/aaep), founded by
// Abdulrafiu Izuafa, licensed under CC-BY-4.0 and MIT.
//
// Streamed assistant text becomes `aaep:agent.output.streaming` chunks as it arrives; each session's
// terminal event is held until the end of the input, because nothing may follow it (L1-LIFE-003).
import type { AgentEvent, EventOf, JsonObject, JsonValue } from "../../model/events.ts";
import { AAEP_CONTEXT, aaepSecretMarker, codePointLength } from "./schema.ts";
import { createClock, isoUtc } from "../../encoding/clock.ts";
import { describeEvent } from "../../encoding/describe.ts";
import { eventBody } from "../../encoding/event-body.ts";
import { redactSecrets } from "../../encoding/redact.ts";
import { createDispatch } from "../../encoding/dispatch.ts";
import { createToolInputJoiner } from "../../encoding/tool-input.ts";
import type { EncoderOptions, RecordEncoder } from "../../encoding/record-encoder.ts";
import { stringifyRecord } from "../../framing/stringify.ts";

/** Our extension's JSON-LD context, declared beside AAEP's on events that carry `extensions.agentstream`. */
const AGENTSTREAM_AAEP_CONTEXT = "https://agentstream.dev/context/aaep/v1";
const AAEP_VERSION = "1.0.0";
/** `chunk` maxLength, in characters (code points, as JSON Schema counts them). */
export const AAEP_MAX_CHUNK = 16384;
const NORMAL_MAX = 16384;
const TERSE_MAX = 4096;
/** The agent's own wait for an answer is not in its stream; the schema's maximum says "no timeout known". */
const CONFIRMATION_TIMEOUT_S = 86400;

type Urgency = "background" | "normal" | "critical";
type Hint = "none" | "word" | "sentence" | "paragraph" | "completion";

/** 32-bit FNV-1a as 8 hex digits: a short deterministic tag for ids. */
function fnv(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * Maps our ids to AAEP's `<prefix>_[A-Za-z0-9]{1,64}`, deterministically: the id's letters and digits
 * (a UUID loses its dashes), or a hash when none are left or they are too long; a second id that
 * would map to the same value gets a hash suffix.
 */
function createIdMap(prefix: string): (raw: string) => string {
  const byCore = new Map<string, string>();
  const byRaw = new Map<string, string>();
  return (raw) => {
    const known = byRaw.get(raw);
    if (known !== undefined) return known;
    let core = raw.replace(/[^A-Za-z0-9]/g, "");
    if (core === "") core = fnv(raw);
    else if (core.length > 64) core = core.slice(0, 56) + fnv(raw);
    if (byCore.has(core)) core = core.slice(0, 56) + fnv(raw);
    for (let n = 2; byCore.has(core); n++) core = core.slice(0, 56) + fnv(`${raw}#${n}`);
    byCore.set(core, raw);
    const id = `${prefix}_${core}`;
    byRaw.set(raw, id);
    return id;
  };
}

/** The first `max` code points of `text`, ending in "…" when cut. */
function clip(text: string, max: number): string {
  if (text.length <= max || codePointLength(text) <= max) return text;
  // A code point is at most two UTF-16 units: this head holds every code point that is kept.
  return `${Array.from(text.slice(0, max * 2))
    .slice(0, max - 1)
    .join("")}…`;
}

/** A string a subscriber may read aloud: one line, non-empty, no secret marker (L1-SAFETY-007); else undefined. */
function spoken(text: string | undefined, max = NORMAL_MAX): string | undefined {
  if (text === undefined) return undefined;
  // Only the start of a long text can be kept; normalising all of it would cost time for nothing.
  const head = text.length > max * 2 + 2 ? text.slice(0, max * 2 + 2) : text;
  const line = clip(head.replace(/\s+/g, " ").trim(), max);
  if (line === "" || aaepSecretMarker(line) !== undefined) return undefined;
  return line;
}

/** AAEP tool names match `^[A-Za-z_][A-Za-z0-9_.-]{0,255}$`. */
export function aaepToolName(name: string): string {
  let tool = name.replace(/[^A-Za-z0-9_.-]/g, "_");
  if (!/^[A-Za-z_]/.test(tool)) tool = `_${tool}`;
  return tool.slice(0, 256);
}

const SENTENCE_END = /[.!?…。！？]+["'”’)\]]*\s+|\n[ \t]*\n\s*/g;

/** Where this chunk's text invites an announcement (coalesce_hint). */
export function coalesceHint(chunk: string): Hint {
  if (/\n[ \t]*\n\s*$/.test(chunk)) return "paragraph";
  if (/[.!?…。！？]["'”’)\]]*\s*$/.test(chunk)) return "sentence";
  if (/[\s,;:]$/.test(chunk)) return "word";
  return "none";
}

/** Splits text into pieces of at most AAEP_MAX_CHUNK code points, at white space when one is near the limit. */
function splitToChunks(text: string): string[] {
  if (codePointLength(text) <= AAEP_MAX_CHUNK) return [text];
  const points = Array.from(text);
  const out: string[] = [];
  let start = 0;
  while (points.length - start > AAEP_MAX_CHUNK) {
    let cut = start + AAEP_MAX_CHUNK;
    for (let i = cut; i > start + AAEP_MAX_CHUNK / 2; i--) {
      if (/\s/.test(points[i - 1] as string)) {
        cut = i;
        break;
      }
    }
    out.push(points.slice(start, cut).join(""));
    start = cut;
  }
  out.push(points.slice(start).join(""));
  return out;
}

/** Text cut after each sentence or paragraph end; with `final`, the rest is the last piece. Pieces concatenate to the input. */
export function splitSentences(text: string, final: boolean): { pieces: string[]; rest: string } {
  const pieces: string[] = [];
  let from = 0;
  for (const match of text.matchAll(SENTENCE_END)) {
    const end = (match.index ?? 0) + match[0].length;
    if (end === text.length && !final && !/\n[ \t]*\n/.test(match[0])) break; // more white space may follow
    pieces.push(text.slice(from, end));
    from = end;
  }
  const rest = text.slice(from);
  if (final && rest !== "") return { pieces: [...pieces, rest], rest: "" };
  return { pieces, rest };
}

interface SessionInfo {
  aaepId: string;
  producer: JsonObject;
  started: boolean;
  toolInvocations: number;
  /** Open calls: our toolCallId → AAEP call id and tool name (must match on completion, L1-TOOL-004). */
  calls: Map<string, { callId: string; tool: string; name: string }>;
  usedCallIds: Set<string>;
  terminal: { event: EventOf<"session.completed">; ms: number } | undefined;
}

interface OutputInfo {
  messageId: string;
  outputId: string;
  key: string;
  /** Everything sent or held so far, to tell whether the completed text extends it. */
  streamed: string;
  /** Code points already sent. */
  position: number;
  /** Sentence mode: text held until a sentence ends. */
  pending: string;
  first: boolean;
  contentType: string | undefined;
  language: string | undefined;
  channel: string | undefined;
}

const MIME = /^[a-zA-Z][a-zA-Z0-9.+_-]*\/[a-zA-Z][a-zA-Z0-9.+_-]*$/;
const BCP47 = /^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/;
/** Notices that are the agent asking the user to approve an action (Codex approval requests, permission prompts). */
const CONFIRMATION_KINDS = /approval|permission/i;
const CLARIFICATION_KINDS = /request_user_input|elicitation|question/i;
/** Extension events nobody needs announced: telemetry, and messages that are not output (reasoning, the user's own words). */
const BACKGROUND_TYPES = new Set<AgentEvent["type"]>([
  "usage",
  "metric",
  "heartbeat",
  "repair",
  "turn.started",
  "turn.completed",
  "tool.progress",
  "message.completed",
]);
/** Events that come before an agent says which session it is (stderr banners, hook notices): held so they join it. */
const PRELUDE_TYPES = new Set<AgentEvent["type"]>(["text", "notice"]);

function errorCategory(error: string | undefined): "transient" | "requires_user" | "unknown" {
  if (error === undefined) return "unknown";
  if (/rate.?limit|overload|timed? ?out|temporar|unavailable|\b(429|500|502|503|504|529)\b/i.test(error)) return "transient";
  if (/auth|credential|api.?key|permission|forbidden|quota|billing|usage limit|not found|invalid model|model_not_found/i.test(error))
    return "requires_user";
  return "unknown";
}

/** The streaming writer for `--to aaep`. */
export function createAaepEncoder(options: EncoderOptions = {}): RecordEncoder<JsonObject> {
  const encoder = new AaepEncoderState(options);
  return {
    encode(event) {
      const out: JsonObject[] = [];
      for (const ready of encoder.joiner.push(event)) {
        if (encoder.sessions.size === 0 && PRELUDE_TYPES.has(ready.type)) {
          encoder.prelude.push(ready);
          continue;
        }
        if (encoder.prelude.length > 0) {
          // The session's start comes first; the prelude without a session joins the first one named.
          const key = ready.sessionId ?? "unknown";
          const first = encoder.prelude;
          encoder.prelude = [];
          if (ready.type === "session.started") out.push(...encoder.write(ready, encoder.keyOf(ready)));
          for (const held of first) out.push(...encoder.write(held, held.sessionId ?? key));
          if (ready.type === "session.started") continue;
        }
        out.push(...encoder.write(ready, encoder.keyOf(ready)));
      }
      return out;
    },
    end() {
      const out: JsonObject[] = [];
      for (const held of encoder.prelude) out.push(...encoder.write(held, "unknown"));
      encoder.prelude = [];
      for (const ready of encoder.joiner.end()) out.push(...encoder.write(ready, encoder.keyOf(ready)));
      const ms = encoder.clock.ms(undefined);
      // Every output gets its one completion and every call its completion (L1-STREAM-002, L1-TOOL-002).
      for (const output of [...encoder.outputs.values()])
        out.push(...encoder.finish(output, encoder.sessions.get(output.key) as SessionInfo, "", ms));
      for (const [key, info] of encoder.sessions) {
        for (const [toolCallId, call] of [...info.calls]) {
          const event = {
            v: 1,
            seq: 0,
            type: "tool.completed",
            toolCallId,
            name: call.name,
            isError: true,
            output: "the input ended before the tool call completed",
          } as EventOf<"tool.completed">;
          out.push(...encoder.toolCompleted(event, key, ms, true));
        }
        out.push(...encoder.terminal(info, info.terminal, ms));
      }
      return out;
    },
  };
}

/** What one AAEP writer remembers (sessions, open outputs and calls, ids), and one method per event type. */
class AaepEncoderState {
  readonly options: EncoderOptions;
  readonly sentences: boolean;
  readonly clock = createClock();
  readonly joiner = createToolInputJoiner();
  readonly sessionIds = createIdMap("sess");
  readonly outputIds = createIdMap("out");
  readonly callIds = createIdMap("call");
  readonly sessions = new Map<string, SessionInfo>();
  readonly outputs = new Map<string, OutputInfo>();
  prelude: AgentEvent[] = [];
  rootSessionId: string | undefined;
  rootProducer: JsonObject | undefined;
  tag: string | undefined;
  counter = 0;
  revisions = 0;

  /** The output key of a message: its id, or (a message that completes again) a fresh one, since an output completes once. */
  readonly seenMessages = new Set<string>();

  readonly dispatch = createDispatch<JsonObject[], [key: string, ms: number]>(
    {
      "session.started": this.sessionStarted.bind(this),
      "message.started": (event, key, ms) => {
        const { out } = this.openSession(key, event, ms);
        if (event.role === "assistant" && event.kind === "text" && !this.outputs.has(event.messageId))
          this.newOutput(event, key, this.outputKey(event.messageId));
        return out;
      },
      "message.delta": (event, _key, ms) => {
        const output = this.outputs.get(event.messageId);
        if (output === undefined) return [];
        return this.stream(output, this.sessionInfo(output.key, event), event.text, ms);
      },
      "message.completed": (event, key, ms) => {
        if (event.role === "assistant" && event.kind === "text") return this.messageCompleted(event, key, ms);
        // Reasoning and what the user said are not output for the user to hear.
        return this.extensionEvent(event, key, ms);
      },
      "tool.started": (event, key, ms) => {
        // A call that is still open is not invoked again (L1-TOOL-002): the repeat is an extension event.
        if (this.sessions.get(key)?.calls.has(event.toolCallId) === true) return this.extensionEvent(event, key, ms);
        return this.toolInvoked(event, key, ms, false);
      },
      "tool.completed": (event, key, ms) => this.toolCompleted(event, key, ms, false),
      notice: this.notice.bind(this),
      "session.completed": this.sessionCompleted.bind(this),
    },
    // What AAEP's core events cannot say travels as an `agentstream:<type>` extension event.
    this.extensionEvent.bind(this),
  );

  constructor(options: EncoderOptions = {}) {
    this.options = options;
    this.sentences = this.options.coalesce === "sentence";
  }

  nextId(prefix: string): string {
    return `${prefix}_${this.tag ?? "0"}${(this.counter++).toString(36)}`;
  }

  envelope(
    type: string,
    info: SessionInfo,
    ms: number,
    urgency: Urgency,
    fields: JsonObject,
    extension: JsonObject | undefined,
  ): JsonObject[] {
    const record: JsonObject = {
      "@context": extension === undefined ? AAEP_CONTEXT : [AAEP_CONTEXT, AGENTSTREAM_AAEP_CONTEXT],
      aaep_version: AAEP_VERSION,
      type,
      event_id: this.nextId("evt"),
      session_id: info.aaepId,
      timestamp: isoUtc(ms),
      producer: info.producer,
      urgency,
      ...fields,
    };
    if (extension !== undefined) record.extensions = { agentstream: extension };
    return [record];
  }

  defined(fields: Record<string, JsonValue | undefined>): JsonObject {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
    return out;
  }

  sessionInfo(key: string, event: AgentEvent): SessionInfo {
    let info = this.sessions.get(key);
    if (info === undefined) {
      this.tag ??= fnv(key);
      const producer = this.rootProducer ?? { agent_id: event.source?.dialect ?? "agentstream" };
      info = {
        aaepId: this.sessionIds(key),
        producer,
        started: false,
        toolInvocations: 0,
        calls: new Map(),
        usedCallIds: new Set(),
        terminal: undefined,
      };
      this.sessions.set(key, info);
    }
    return info;
  }

  /** The session's info, after its agent.session.started (synthesized when the input began without one). */
  openSession(key: string, event: AgentEvent, ms: number): { info: SessionInfo; out: JsonObject[] } {
    const info = this.sessionInfo(key, event);
    if (info.started) return { info, out: [] };
    info.started = true;
    // `session_id` says which of our sessions it is (null: the input named none), so a reader can put it back.
    const original = key === "unknown" ? null : key;
    return {
      info,
      out: this.envelope(
        "aaep:agent.session.started",
        info,
        ms,
        "normal",
        { summary_normal: "Session started." },
        { synthesized: true, session_id: original },
      ),
    };
  }

  /** An event AAEP has no type for: `agentstream:<type>`, the event itself in the extension. */
  extensionEvent(event: AgentEvent, key: string, ms: number): JsonObject[] {
    const { info, out } = this.openSession(key, event, ms);
    const urgency: Urgency =
      event.type === "error" && event.fatal === true ? "critical" : BACKGROUND_TYPES.has(event.type) ? "background" : "normal";
    const summary = BACKGROUND_TYPES.has(event.type) ? undefined : spoken(describeEvent(event));
    return [
      ...out,
      ...this.envelope(`agentstream:${event.type}`, info, ms, urgency, this.defined({ summary_normal: summary }), {
        event: eventBody(event),
      }),
    ];
  }

  sessionStarted(event: EventOf<"session.started">, key: string, ms: number): JsonObject[] {
    const existing = this.sessions.get(key);
    if (existing?.started === true) return this.extensionEvent(event, key, ms); // a session starts once (L1-LIFE-003)
    const producer = this.defined({
      agent_id: event.agent ?? this.rootProducer?.agent_id ?? event.source?.dialect ?? "agentstream",
      agent_version: event.agentVersion,
      model: event.model,
    });
    if (event.parentSessionId === undefined && event.sessionId !== undefined) {
      this.rootSessionId = event.sessionId;
      this.rootProducer ??= producer;
    }
    const info = this.sessionInfo(key, event);
    info.producer = producer;
    info.started = true;
    const tools =
      event.tools === undefined ? undefined : [...new Set(event.tools.filter((t) => t !== "" && codePointLength(t) <= 256))].slice(0, 256);
    const summary = spoken(describeEvent(event)) ?? "Session started.";
    return this.envelope(
      "aaep:agent.session.started",
      info,
      ms,
      "normal",
      this.defined({ summary_normal: summary, tools_available: tools }),
      {
        event: eventBody(event),
      },
    );
  }

  // ---- output streaming ----

  chunk(output: OutputInfo, info: SessionInfo, piece: string, complete: boolean, ms: number): JsonObject[] {
    const fields = this.defined({
      chunk: piece,
      position: output.position,
      complete,
      coalesce_hint: complete ? "completion" : coalesceHint(piece),
      output_id: output.outputId,
      content_type: output.contentType,
      language: output.language,
    });
    const extension = output.first ? this.defined({ message_id: output.messageId, channel: output.channel }) : undefined;
    output.first = false;
    output.position += codePointLength(piece);
    return this.envelope("aaep:agent.output.streaming", info, ms, "normal", fields, extension);
  }

  newOutput(event: EventOf<"message.started"> | EventOf<"message.completed">, key: string, outputKey: string): OutputInfo {
    const output: OutputInfo = {
      messageId: event.messageId,
      outputId: this.outputIds(outputKey),
      key,
      streamed: "",
      position: 0,
      pending: "",
      first: true,
      contentType: event.contentType !== undefined && MIME.test(event.contentType) ? event.contentType : undefined,
      language: event.language !== undefined && BCP47.test(event.language) ? event.language : undefined,
      channel: event.channel,
    };
    this.outputs.set(event.messageId, output);
    return output;
  }

  /** Sends text that is not the end of the output: whole, or (sentence mode) the complete sentences in it. */
  stream(output: OutputInfo, info: SessionInfo, text: string, ms: number): JsonObject[] {
    output.streamed += text;
    let pieces: string[];
    if (this.sentences) {
      output.pending += text;
      const { pieces: done, rest } = splitSentences(output.pending, false);
      output.pending = rest;
      pieces = done;
      // A sentence longer than a chunk cannot wait for its end.
      if (codePointLength(rest) > AAEP_MAX_CHUNK) {
        const parts = splitToChunks(rest);
        output.pending = parts.pop() ?? "";
        pieces.push(...parts);
      }
    } else {
      pieces = [text];
    }
    const out: JsonObject[] = [];
    for (const piece of pieces)
      for (const part of splitToChunks(piece)) if (part !== "") out.push(...this.chunk(output, info, part, false, ms));
    return out;
  }

  /** The end of an output: what is left, the last piece with complete=true (an empty chunk when nothing is left). */
  finish(output: OutputInfo, info: SessionInfo, rest: string, ms: number): JsonObject[] {
    this.outputs.delete(output.messageId);
    const text = output.pending + rest;
    output.pending = "";
    const pieces = (this.sentences ? splitSentences(text, true).pieces : [text]).flatMap(splitToChunks).filter((p) => p !== "");
    const out: JsonObject[] = [];
    pieces.forEach((piece, i) => {
      out.push(...this.chunk(output, info, piece, i === pieces.length - 1, ms));
    });
    if (pieces.length === 0) out.push(...this.chunk(output, info, "", true, ms));
    return out;
  }

  outputKey(messageId: string): string {
    if (!this.seenMessages.has(messageId)) {
      this.seenMessages.add(messageId);
      return messageId;
    }
    this.revisions++;
    return `${messageId}#${this.revisions}`;
  }

  messageCompleted(event: EventOf<"message.completed">, key: string, ms: number): JsonObject[] {
    const { info, out } = this.openSession(key, event, ms);
    const output = this.outputs.get(event.messageId);
    if (output !== undefined && !event.text.startsWith(output.streamed)) {
      // The agent revised text already sent (repair: snapshot-discontinuity); chunks cannot be taken
      // back, so the streamed output ends here and the final text follows as a new output.
      return [
        ...out,
        ...this.finish(output, info, "", ms),
        ...this.finish(this.newOutput(event, key, this.outputKey(event.messageId)), info, event.text, ms),
      ];
    }
    const target = output ?? this.newOutput(event, key, this.outputKey(event.messageId));
    return [...out, ...this.finish(target, info, event.text.slice(target.streamed.length), ms)];
  }

  // ---- tools ----

  toolInvoked(event: EventOf<"tool.started">, key: string, ms: number, synthesized: boolean): JsonObject[] {
    const { info, out } = this.openSession(key, event, ms);
    const tool = aaepToolName(event.name);
    let callId = this.callIds(event.toolCallId);
    // A call id is invoked once per session (L1-TOOL-002): a reused id gets a fresh one.
    for (let n = 2; info.usedCallIds.has(callId); n++) callId = `call_${callId.slice(5, 56)}${fnv(`${event.toolCallId}#${n}`)}`;
    info.usedCallIds.add(callId);
    info.calls.set(event.toolCallId, { callId, tool, name: event.name });
    info.toolInvocations++;
    const args = event.input === undefined ? undefined : spoken(stringifyRecord(redactSecrets(event.input)), 500);
    const summary = spoken(event.description) ?? spoken(`Calling ${event.name}.`) ?? "Calling a tool.";
    const extension = synthesized ? { synthesized: true } : { event: eventBody(event) };
    return [
      ...out,
      ...this.envelope(
        "aaep:agent.tool.invoked",
        info,
        ms,
        "normal",
        this.defined({ tool, summary_normal: summary, args_summary: args, tool_call_id: callId }),
        extension,
      ),
    ];
  }

  toolCompleted(event: EventOf<"tool.completed">, key: string, ms: number, synthesized: boolean): JsonObject[] {
    const { info, out: opened } = this.openSession(key, event, ms);
    const out = [...opened];
    let call = info.calls.get(event.toolCallId);
    if (call === undefined) {
      // A result whose call never started here: invoke it first, so the completion is not an orphan (L1-TOOL-001).
      const start = {
        v: 1,
        seq: 0,
        type: "tool.started",
        toolCallId: event.toolCallId,
        name: event.name ?? "unknown",
      } as EventOf<"tool.started">;
      out.push(...this.toolInvoked(start, key, ms, true));
      info.toolInvocations--;
      call = info.calls.get(event.toolCallId) as { callId: string; tool: string; name: string };
    }
    info.calls.delete(event.toolCallId);
    const name = event.name ?? call.name;
    const fields = this.defined({
      tool: call.tool,
      status: event.isError ? "error" : "success",
      tool_call_id: call.callId,
      duration_ms:
        event.durationMs !== undefined && event.durationMs >= 0 && event.durationMs <= 86400000 ? Math.round(event.durationMs) : undefined,
      summary_normal:
        spoken(`${name} ${event.isError ? "failed" : "finished"}.`) ?? (event.isError ? "The tool failed." : "The tool finished."),
      error_message: event.isError ? clip(event.output?.trim() || "The tool reported an error.", TERSE_MAX) : undefined,
    });
    return [
      ...out,
      ...this.envelope(
        "aaep:agent.tool.completed",
        info,
        ms,
        "normal",
        fields,
        synthesized ? { synthesized: true } : { event: eventBody(event) },
      ),
    ];
  }

  // ---- notices that ask the user ----

  notice(event: EventOf<"notice">, key: string, ms: number): JsonObject[] {
    const confirmation = CONFIRMATION_KINDS.test(event.kind);
    if (!confirmation && !CLARIFICATION_KINDS.test(event.kind)) return this.extensionEvent(event, key, ms);
    const { info, out } = this.openSession(key, event, ms);
    const extension = { event: eventBody(event) };
    if (!confirmation) {
      const question = clip(event.text.trim() || "The agent asks a question.", NORMAL_MAX);
      const fields = {
        question,
        reply_token: this.nextId("rpl"),
        timeout_seconds: CONFIRMATION_TIMEOUT_S,
        accepted_response_kinds: ["freetext"],
        summary_normal: spoken(`Question: ${event.text}`) ?? "The agent asks a question.",
      };
      return [...out, ...this.envelope("aaep:agent.awaiting.clarification", info, ms, "critical", fields, extension)];
    }
    const fields = {
      action: spoken(event.text) ?? "The agent asks for approval of an action.",
      consequence: "The agent waits for this approval before it goes on.",
      reply_token: this.nextId("rpl"),
      timeout_seconds: CONFIRMATION_TIMEOUT_S,
      // Safe default (spec ch. 6): without an answer, the action does not happen.
      default_decision: "reject",
      summary_normal: spoken(`Approval needed: ${event.text}`) ?? "Approval needed.",
    };
    return [...out, ...this.envelope("aaep:agent.awaiting.confirmation", info, ms, "critical", fields, extension)];
  }

  // ---- terminal events ----

  terminal(info: SessionInfo, held: SessionInfo["terminal"], ms: number): JsonObject[] {
    if (held === undefined) {
      const fields = {
        cancelled_by: "system",
        summary_normal: "The input ended before the session completed.",
        cancellation_reason: "input_ended",
      };
      return this.envelope("aaep:agent.session.cancelled", info, ms, "normal", fields, { synthesized: true });
    }
    const { event } = held;
    const extension = { event: eventBody(event) };
    if (event.status === "success") {
      const fields = this.defined({
        summary_normal: "Session completed.",
        duration_ms:
          event.durationMs !== undefined && event.durationMs >= 0 && event.durationMs <= 86400000
            ? Math.round(event.durationMs)
            : undefined,
        tool_invocations_count: info.toolInvocations,
      });
      return this.envelope("aaep:agent.session.completed", info, held.ms, "normal", fields, extension);
    }
    if (event.status === "interrupted") {
      const fields = {
        cancelled_by: "user",
        summary_normal: spoken(event.error) ?? "The session was interrupted.",
        cancellation_reason: "interrupted",
      };
      return this.envelope("aaep:agent.session.cancelled", info, held.ms, "normal", fields, extension);
    }
    const category = errorCategory(event.error);
    const fields = this.defined({
      error_category: category,
      summary_normal: spoken(event.error) ?? "The session ended with an error.",
      recoverable: category === "transient" ? true : undefined,
    });
    return this.envelope("aaep:agent.session.errored", info, held.ms, "critical", fields, extension);
  }

  sessionCompleted(event: EventOf<"session.completed">, key: string, ms: number): JsonObject[] {
    const { info, out } = this.openSession(key, event, ms);
    const previous = info.terminal;
    info.terminal = { event, ms };
    // A session that completes twice (Claude's background agents): the earlier completion is told as an extension event.
    return previous === undefined ? out : [...out, ...this.extensionEvent(previous.event, key, previous.ms)];
  }

  write(event: AgentEvent, key: string): JsonObject[] {
    return this.dispatch(event, key, this.clock.ms(event.time));
  }

  keyOf(event: AgentEvent): string {
    return event.sessionId ?? this.rootSessionId ?? "unknown";
  }
}
