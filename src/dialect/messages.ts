/**
 * Bookkeeping every dialect needs: message positions for deltas, open messages and tool calls to
 * close at the end of input, and ids for records that carry none. Dialects report what the agent
 * said as it said it; de-duplication of repeated or snapshot text is the repair stage's job.
 */
import {
  NO_RESULT_OUTPUT,
  type AgentEventDraft,
  type JsonObject,
  type MessageKind,
  type MessageMeta,
  type MessageRole,
} from "../model/events.ts";
import type { DecodeContext, JsonRecordReader } from "./dialect.ts";

interface OpenMessage {
  role: MessageRole;
  kind: MessageKind;
  /** All delta text so far, joined on demand. */
  parts: string[];
  length: number;
  sessionId: string | undefined;
  meta: MessageMeta;
}

/** Options for a started message. */
interface StartOptions extends MessageMeta {
  sessionId?: string | undefined;
  time?: string | undefined;
}

/** Tracks streamed messages and tool calls for one decoder. */
export interface StreamState {
  /** `message.started` (once per id; later calls return nothing). */
  start(messageId: string, role: MessageRole, kind: MessageKind, options?: StartOptions): AgentEventDraft[];
  /** `message.started` if needed, then `message.delta` at the right position. Empty text gives nothing. */
  delta(messageId: string, text: string, role: MessageRole, kind: MessageKind, options?: StartOptions): AgentEventDraft[];
  /**
   * `message.completed` with `text` (or, when `text` is undefined, the text streamed so far).
   * Starts the message first if it never started, so every completed message has a start.
   */
  complete(
    messageId: string,
    text: string | undefined,
    role: MessageRole,
    kind: MessageKind,
    options?: StartOptions & { signature?: string | undefined },
  ): AgentEventDraft[];
  /** True while `messageId` has started and not completed. */
  isOpen(messageId: string): boolean;
  /** Text streamed so far for an open message. */
  streamedText(messageId: string): string | undefined;
  /** Marks a tool call as started (for closing at end). */
  toolStarted(toolCallId: string, name: string, sessionId?: string): void;
  /** Marks a tool call as completed; returns false when it was not open. */
  toolCompleted(toolCallId: string): boolean;
  /** Name of an open or finished tool call. */
  toolName(toolCallId: string): string | undefined;
  /** Closes every open message (with its streamed text) and tool call (as an error: the input ended). */
  closeAll(): AgentEventDraft[];
  /** A fresh id for records that carry none: `prefix-1`, `prefix-2`, ... */
  nextId(prefix: string): string;
}

/** Tool names remembered after their calls finish (insertion order is age). */
const REMEMBERED_TOOL_NAMES = 1024;

export function createStreamState(): StreamState {
  const messages = new Map<string, OpenMessage>();
  const openTools = new Map<string, { name: string; sessionId: string | undefined }>();
  const toolNames = new Map<string, string>();
  const counters = new Map<string, number>();

  const metaOf = (options?: StartOptions): MessageMeta => {
    const meta: { contentType?: string; language?: string; channel?: string } = {};
    addMeta(meta, options);
    return meta;
  };

  const state: StreamState = {
    start(messageId, role, kind, options) {
      if (messages.has(messageId)) return [];
      const meta = metaOf(options);
      messages.set(messageId, { role, kind, parts: [], length: 0, sessionId: options?.sessionId, meta });
      return [startedDraft(messageId, role, kind, meta, options)];
    },
    delta(messageId, text, role, kind, options) {
      if (text === "") return [];
      let open = messages.get(messageId);
      const out = open === undefined ? state.start(messageId, role, kind, options) : [];
      open ??= messages.get(messageId) as OpenMessage;
      out.push(deltaDraft(messageId, open, text, options?.sessionId ?? open.sessionId, options?.time));
      open.parts.push(text);
      open.length += text.length;
      return out;
    },
    complete(messageId, text, role, kind, options) {
      const open = messages.get(messageId);
      // A message given whole (no deltas) never enters the map: an entry added and removed at once per message
      // would be churn, and a Map reaches what it removed through the tables it replaced until a full collection.
      const out = open === undefined ? [startedDraft(messageId, role, kind, metaOf(options), options)] : [];
      let full = text ?? "";
      if (open !== undefined) {
        messages.delete(messageId);
        full = text ?? open.parts.join("");
        open.parts.length = 0; // emptied, the entry holds no text where the Map still reaches it
      }
      const draft: Draft = { type: "message.completed", messageId, role, kind, text: full };
      addMeta(draft, open?.meta);
      addMeta(draft, options);
      if (options?.signature !== undefined) draft.signature = options.signature;
      out.push(withSession(draft, options?.sessionId ?? open?.sessionId, options?.time));
      return out;
    },
    isOpen: (messageId) => messages.has(messageId),
    streamedText: (messageId) => messages.get(messageId)?.parts.join(""),
    toolStarted(toolCallId, name, sessionId) {
      openTools.set(toolCallId, { name, sessionId });
      toolNames.delete(toolCallId);
      toolNames.set(toolCallId, name);
      // Names of finished calls are kept for late results only: the oldest are released past the bound.
      if (toolNames.size > REMEMBERED_TOOL_NAMES) {
        for (const id of toolNames.keys()) {
          if (toolNames.size <= REMEMBERED_TOOL_NAMES) break;
          if (!openTools.has(id)) toolNames.delete(id);
        }
      }
    },
    toolCompleted: (toolCallId) => openTools.delete(toolCallId),
    toolName: (toolCallId) => toolNames.get(toolCallId),
    closeAll() {
      const out: AgentEventDraft[] = [];
      for (const [messageId, open] of [...messages]) {
        messages.delete(messageId);
        const draft: Draft = { type: "message.completed", messageId, role: open.role, kind: open.kind, text: open.parts.join("") };
        addMeta(draft, open.meta);
        out.push(withSession(draft, open.sessionId));
      }
      for (const [toolCallId, open] of [...openTools]) {
        openTools.delete(toolCallId);
        out.push(
          withSession({ type: "tool.completed", toolCallId, name: open.name, isError: true, output: NO_RESULT_OUTPUT }, open.sessionId),
        );
      }
      return out;
    },
    nextId(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}-${n}`;
    },
  };
  return state;
}

/**
 * A draft being built: the stream state makes each one and adds its optional fields in order, so the
 * keys (and the text written) are in one order, without copying the draft once per field.
 */
type Draft = { type: AgentEventDraft["type"]; contentType?: string; language?: string; channel?: string; [field: string]: unknown };

/** Adds `meta`'s fields that are set, in the model's order (contentType, language, channel). */
function addMeta(draft: { contentType?: string; language?: string; channel?: string }, meta: MessageMeta | undefined): void {
  if (meta?.contentType !== undefined) draft.contentType = meta.contentType;
  if (meta?.language !== undefined) draft.language = meta.language;
  if (meta?.channel !== undefined) draft.channel = meta.channel;
}

/** A `message.started` draft with the message's meta, session and time. */
function startedDraft(
  messageId: string,
  role: MessageRole,
  kind: MessageKind,
  meta: MessageMeta,
  options: StartOptions | undefined,
): AgentEventDraft {
  const draft: Draft = { type: "message.started", messageId, role, kind };
  addMeta(draft, meta);
  return withSession(draft, options?.sessionId, options?.time);
}

/** Adds the session and time a draft's record gave, and returns it as the draft it now is. */
function withSession(draft: Draft, sessionId: string | undefined, time?: string): AgentEventDraft {
  if (sessionId !== undefined) draft.sessionId = sessionId;
  if (time !== undefined) draft.time = time;
  return draft as unknown as AgentEventDraft;
}

/**
 * A `message.delta` draft as one object literal: the commonest event of a stream. Spreading a
 * draft to add its session (`{ ...draft, sessionId }`) cost more than building it, once per delta;
 * the keys are in the same order, so the text written is the same.
 */
function deltaDraft(
  messageId: string,
  open: OpenMessage,
  text: string,
  sessionId: string | undefined,
  time: string | undefined,
): AgentEventDraft {
  const { role, kind, length: position } = open;
  if (time !== undefined) {
    return sessionId === undefined
      ? { type: "message.delta", messageId, role, kind, text, position, time }
      : { type: "message.delta", messageId, role, kind, text, position, sessionId, time };
  }
  return sessionId === undefined
    ? { type: "message.delta", messageId, role, kind, text, position }
    : { type: "message.delta", messageId, role, kind, text, position, sessionId };
}

/** A reader of JSON records whose messages and tool calls live in one StreamState, closed when the input ends. */
export abstract class StreamStateReader implements JsonRecordReader {
  readonly state = createStreamState();

  abstract decodeJson(value: JsonObject, context: DecodeContext): AgentEventDraft[];

  end(): AgentEventDraft[] {
    return this.state.closeAll();
  }
}
