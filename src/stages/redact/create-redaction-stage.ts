/**
 * The redaction stage: runs after stream repair and replaces secrets in every text-bearing field of
 * every event (message text and deltas, reasoning, tool input and its deltas, tool output and its
 * progress chunks, file diffs, errors, notices, `text` events, unknown records and details). Streamed
 * text goes through one stream redactor per channel, so a token split across deltas is caught;
 * delta positions are rewritten so the redacted stream is self-consistent. docs/redaction.md.
 */
import type { AgentEventDraft, JsonValue, MessageKind, MessageRole } from "../../model/events.ts";
import type { EventStage } from "../stage.ts";
import { createStreamRedactor, MAX_HELD_CHARS, type StreamRedactor } from "./create-stream-redactor.ts";
import { redactText, redactValue, type RedactionCounts } from "./redact-text.ts";

type Emit = (draft: AgentEventDraft) => void;
type Draft<T extends AgentEventDraft["type"]> = Extract<AgentEventDraft, { type: T }>;

/** A message's text as it streams: raw characters seen, redacted characters sent. */
interface MessageChannel {
  readonly redactor: StreamRedactor;
  /** Where the next raw delta is expected (its `position` when nothing is missing). */
  rawEnd: number;
  /** Where the next redacted delta goes. */
  outEnd: number;
  /** The deltas as they came and as they went out: a completion with the same text reuses the redaction. */
  rawText: string;
  outText: string;
  readonly sessionId: string | undefined;
  /** The message's role and kind, repeated on every delta this stage emits. */
  readonly role: MessageRole;
  readonly kind: MessageKind;
}

/**
 * Lets go of a finished message's texts. The Map it was in may still reach it from a table it replaced (kept for
 * iterators), and what that table reaches lives until a full collection: an emptied channel holds no text there.
 */
function emptyChannel(channel: { rawText: string; outText: string }): void {
  channel.rawText = "";
  channel.outText = "";
}

/** Fields that hold identifiers or enumerations, never free text: left as they are. */
const NOT_TEXT = new Set([
  "type",
  "messageId",
  "toolCallId",
  "sessionId",
  "parentSessionId",
  "parentToolCallId",
  "turnId",
  "planId",
  "time",
  "source",
  "role",
  "kind",
  "level",
  "scope",
  "position",
  "signature",
  "isError",
  "fatal",
]);
/** Fields that hold the agent's JSON: redacted by key name too (`{"password": ...}`). */
const JSON_FIELDS = new Set(["input", "result", "details", "raw", "values"]);

/** The stage plus the counts it has made so far. */
export interface RedactionStage extends EventStage {
  /** Secrets replaced so far, by kind. */
  readonly counts: RedactionCounts;
}

/** How the redaction stage treats message deltas. */
export interface RedactionStageOptions {
  /**
   * `stream` (the default): each delta is redacted as it comes, by the message's stream redactor.
   * `at-completion` (selective reading, `fields: "summary"`, whose facts never read a delta): deltas are passed
   * on with `text: ""`, and the message's text is redacted once, joined, when it completes or the input ends.
   * The counts are those of streaming: streaming redaction equals whole-text redaction up to MAX_HELD_CHARS
   * characters, and a longer message is replayed, delta by delta, through a stream redactor.
   */
  readonly messageDeltas?: "stream" | "at-completion";
}

/** Creates the redaction stage; `createEventReader` adds it when `redact` is on. */
export function createRedactionStage(options: RedactionStageOptions = {}): RedactionStage {
  return new Redactor(options.messageDeltas === "at-completion");
}

/** A message's deltas as they came, redacted when it completes (`messageDeltas: "at-completion"`). */
interface HeldMessage {
  readonly pieces: string[];
  length: number;
}

/** What the redaction stage keeps per stream (messages, tool inputs and outputs) and how it redacts each event. */
class Redactor implements RedactionStage {
  readonly counts: RedactionCounts = {};
  readonly messages = new Map<string, MessageChannel>();
  readonly toolInputs = new Map<string, StreamRedactor>();
  readonly toolOutputs = new Map<string, StreamRedactor>();
  readonly heldMessages = new Map<string, HeldMessage>();
  private readonly deltasAtCompletion: boolean;

  constructor(deltasAtCompletion: boolean) {
    this.deltasAtCompletion = deltasAtCompletion;
  }

  push(draft: AgentEventDraft, emit: Emit): void {
    switch (draft.type) {
      case "message.delta":
        return this.deltasAtCompletion ? this.holdDelta(draft, emit) : this.messageDelta(draft, emit);
      case "message.completed":
        return this.completeMessage(draft, emit);
      case "tool.input.delta":
        return this.toolInputDelta(draft, emit);
      case "tool.progress":
        return this.toolProgress(draft, emit);
      case "tool.completed":
        this.flushTool(draft.toolCallId, draft.sessionId, emit);
        return emit(this.redactFields(draft));
      default:
        return emit(this.redactFields(draft));
    }
  }

  end(emit: Emit): void {
    for (const messageId of [...this.messages.keys()]) this.flushMessage(messageId, emit);
    for (const messageId of [...this.heldMessages.keys()]) this.redactHeld(messageId);
    for (const toolCallId of new Set([...this.toolInputs.keys(), ...this.toolOutputs.keys()])) this.flushTool(toolCallId, undefined, emit);
  }

  private toolInputDelta(draft: Draft<"tool.input.delta">, emit: Emit): void {
    const text = this.streamed(this.toolInputs, draft.toolCallId, draft.text);
    if (text.length > 0) emit(this.redactFields(text === draft.text ? draft : { ...draft, text }, "text"));
  }

  private messageDelta(draft: Draft<"message.delta">, emit: Emit): void {
    let channel = this.messages.get(draft.messageId);
    if (channel === undefined) {
      channel = {
        redactor: createStreamRedactor(this.counts),
        rawEnd: draft.position,
        outEnd: draft.position,
        rawText: "",
        outText: "",
        sessionId: draft.sessionId,
        role: draft.role,
        kind: draft.kind,
      };
      this.messages.set(draft.messageId, channel);
    }
    // A gap or overlap in the input stays visible as the same gap or overlap in the output.
    const drift = draft.position - channel.rawEnd;
    channel.rawEnd = draft.position + draft.text.length;
    channel.rawText += draft.text;
    const text = channel.redactor.push(draft.text);
    channel.outText += text;
    if (text.length === 0) return; // all held back: it comes with the next delta or at completion
    const position = channel.outEnd + drift;
    channel.outEnd = position + text.length;
    // Nearly every delta comes out as it went in: pass the draft on without a copy.
    emit(this.redactFields(text === draft.text && position === draft.position ? draft : { ...draft, text, position }, "text"));
  }

  /** `at-completion`: keeps the delta's text for its message's completion and passes the delta on without it. */
  private holdDelta(draft: Draft<"message.delta">, emit: Emit): void {
    if (draft.text === "") return;
    let held = this.heldMessages.get(draft.messageId);
    if (held === undefined) {
      held = { pieces: [], length: 0 };
      this.heldMessages.set(draft.messageId, held);
    }
    held.pieces.push(draft.text);
    held.length += draft.text.length;
    emit({ ...draft, text: "" });
  }

  /** `at-completion`: the message's deltas joined (`rawText`) and redacted (`outText`), counted once; undefined when none came. */
  private redactHeld(messageId: string): { rawText: string; outText: string } | undefined {
    const held = this.heldMessages.get(messageId);
    if (held === undefined) return undefined;
    this.heldMessages.delete(messageId);
    const rawText = held.pieces.join("");
    // The Map may still reach this entry from a table it replaced: emptied, it holds no text there (create-repair-stage.ts, `forget`).
    const pieces = held.pieces.splice(0);
    if (held.length <= MAX_HELD_CHARS) return { rawText, outText: redactText(rawText, this.counts) };
    // Longer: a stream redactor may let a long tail go, so the deltas are replayed through one to count as it does.
    const redactor = createStreamRedactor(this.counts);
    let outText = "";
    for (const piece of pieces) outText += redactor.push(piece);
    return { rawText, outText: outText + redactor.flush() };
  }

  /** Ends a message's stream: sends what was held back; returns the channel (undefined when nothing streamed). */
  private flushMessage(messageId: string, emit: Emit): MessageChannel | undefined {
    const channel = this.messages.get(messageId);
    if (channel === undefined) return undefined;
    this.messages.delete(messageId);
    const text = channel.redactor.flush();
    channel.outText += text;
    if (text.length === 0) return channel;
    const draft: AgentEventDraft = {
      type: "message.delta",
      messageId,
      role: channel.role,
      kind: channel.kind,
      text,
      position: channel.outEnd,
    };
    emit(channel.sessionId === undefined ? draft : { ...draft, sessionId: channel.sessionId });
    return channel;
  }

  /**
   * The completed text: when it is what the deltas said, their redaction is reused (no second scan
   * of a long answer, and a secret in a message counts once); otherwise it is redacted anew.
   */
  private completeMessage(draft: Draft<"message.completed">, emit: Emit): void {
    const channel = this.deltasAtCompletion ? this.redactHeld(draft.messageId) : this.flushMessage(draft.messageId, emit);
    if (channel === undefined || channel.rawText !== draft.text) {
      if (channel !== undefined) emptyChannel(channel);
      emit(this.redactFields(draft));
      return;
    }
    const redacted = this.redactFields(draft, "text");
    const outText = channel.outText;
    emptyChannel(channel);
    emit(outText === draft.text ? redacted : { ...redacted, text: outText });
  }

  private flushTool(toolCallId: string, sessionId: string | undefined, emit: Emit): void {
    const input = this.toolInputs.get(toolCallId);
    this.toolInputs.delete(toolCallId);
    const inputRest = input?.flush() ?? "";
    if (inputRest.length > 0) emit(withSession({ type: "tool.input.delta", toolCallId, text: inputRest }, sessionId));
    const output = this.toolOutputs.get(toolCallId);
    this.toolOutputs.delete(toolCallId);
    const outputRest = output?.flush() ?? "";
    if (outputRest.length > 0) emit(withSession({ type: "tool.progress", toolCallId, output: outputRest }, sessionId));
  }

  private streamed(map: Map<string, StreamRedactor>, id: string, text: string): string {
    let redactor = map.get(id);
    if (redactor === undefined) {
      redactor = createStreamRedactor(this.counts);
      map.set(id, redactor);
    }
    return redactor.push(text);
  }

  /** Redacts every free-text and JSON field of `draft` except `skip`; returns `draft` itself when nothing changed. */
  private redactFields<T extends AgentEventDraft>(draft: T, skip?: string): T {
    let out: Record<string, unknown> | undefined;
    const fields = draft as Record<string, unknown>;
    // for-in, not Object.entries: this runs on every event, and most have nothing to redact.
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined || key === skip || NOT_TEXT.has(key)) continue;
      const redacted = JSON_FIELDS.has(key) ? redactValue(value as JsonValue, this.counts) : this.redactStrings(value as JsonValue);
      if (redacted !== value) {
        out ??= { ...draft };
        out[key] = redacted;
      }
    }
    return (out ?? draft) as T;
  }

  /** Like `redactValue`, by pattern only: event fields such as `changes` and `items` have our key names, not the agent's. */
  private redactStrings(value: JsonValue): JsonValue {
    if (typeof value === "string") return redactText(value, this.counts);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let out: JsonValue[] | undefined;
      value.forEach((item, i) => {
        const redacted = this.redactStrings(item);
        if (redacted !== item) {
          out ??= value.slice();
          out[i] = redacted;
        }
      });
      return out ?? value;
    }
    let out: { [key: string]: JsonValue } | undefined;
    for (const [key, inner] of Object.entries(value)) {
      const redacted = this.redactStrings(inner);
      if (redacted !== inner) {
        out ??= { ...value };
        out[key] = redacted;
      }
    }
    return out ?? value;
  }

  private toolProgress(draft: Draft<"tool.progress">, emit: Emit): void {
    // Input deltas end when the tool runs.
    const input = this.toolInputs.get(draft.toolCallId);
    if (input !== undefined) {
      this.toolInputs.delete(draft.toolCallId);
      const rest = input.flush();
      if (rest.length > 0) emit(withSession({ type: "tool.input.delta", toolCallId: draft.toolCallId, text: rest }, draft.sessionId));
    }
    if (draft.output === undefined) {
      emit(this.redactFields(draft));
      return;
    }
    const output = this.streamed(this.toolOutputs, draft.toolCallId, draft.output);
    if (output.length > 0) {
      emit(this.redactFields(output === draft.output ? draft : { ...draft, output }, "output"));
      return;
    }
    // All held back: keep the event only when it says something else.
    const { output: _held, ...rest } = draft;
    if (rest.status !== undefined || rest.elapsedMs !== undefined) emit(this.redactFields(rest));
  }
}

function withSession(draft: AgentEventDraft, sessionId: string | undefined): AgentEventDraft {
  return sessionId === undefined ? draft : { ...draft, sessionId };
}
