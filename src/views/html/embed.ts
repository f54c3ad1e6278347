/**
 * What the HTML export embeds of a session, kept proportional to it: each long text field (a tool
 * output, a diff, a message, arguments, an unknown record) is cut to `fieldChars` (its start and its
 * end kept), and once `totalChars` have been embedded every further field keeps `afterBudgetChars`.
 * Message deltas are not embedded when their completed message carries the whole text. What was
 * left out is counted, by event and field, so the page says so where it happened.
 */
import type { AgentEvent, EventOf, FileChange, JsonValue } from "../../model/events.ts";
import { stringifyRecord } from "../../framing/stringify.ts";
import type { ExportHeader, ExportTruncation, ExportedSession } from "../shared/exported-session.ts";

/** The export's caps, in UTF-16 characters (docs/web.md). */
export interface EmbedCaps {
  readonly fieldChars: number;
  readonly totalChars: number;
  readonly afterBudgetChars: number;
  /**
   * Once this many characters are embedded, each event counted as `EVENT_CHARS` besides its fields, no further event
   * is (the session's end excepted): they are counted in `omittedEvents`. Bounds the page, and the memory that makes
   * it, on a stream of millions of events however short. @defaultValue 2 × `totalChars`
   */
  readonly eventsChars?: number;
}

/** 256 Ki characters a field, 8 Mi in all, then 4 Ki a field; no event past 16 Mi. */
export const DEFAULT_CAPS: EmbedCaps = { fieldChars: 256 * 1024, totalChars: 8 * 1024 * 1024, afterBudgetChars: 4 * 1024 };

/** What one event costs against `eventsChars` besides its text fields: about its envelope as JSON (type, seq, ids, time). */
export const EVENT_CHARS = 128;

/** Collects one session's events for the export, cutting as they come (memory stays near the caps). */
export interface SessionEmbedder {
  add(event: AgentEvent): void;
  /** The session as embedded; call once, after the last event. */
  result(header: ExportHeader): ExportedSession;
  /** Events kept so far. */
  readonly count: number;
}

/** Creates an embedder with the given caps. */
export function createSessionEmbedder(caps: EmbedCaps = DEFAULT_CAPS): SessionEmbedder {
  const events: AgentEvent[] = [];
  /** Deltas of messages not completed yet: dropped when the message completes. */
  const pendingDeltas = new Map<string, AgentEvent[]>();
  const cut: Record<string, Record<string, number>> = {};
  let embedded = 0;
  let shortened = 0;
  let omittedChars = 0;
  let mergedDeltas = 0;
  let omittedEvents = 0;
  /** Characters embedded with each event's envelope counted: past `eventsChars`, events are left out. */
  let withEvents = 0;
  const eventsChars = caps.eventsChars ?? 2 * caps.totalChars;

  /** `text` within the caps, noting what was left out as `field` of event `seq`. */
  const fitText = (seq: number, field: string, text: string): string => {
    const room = embedded >= caps.totalChars ? caps.afterBudgetChars : caps.fieldChars;
    if (text.length <= room) {
      embedded += text.length;
      return text;
    }
    const kept = cutMiddle(text, room);
    embedded += kept.length;
    shortened++;
    omittedChars += text.length - room;
    cut[String(seq)] = { ...cut[String(seq)], [field]: text.length - room };
    return kept;
  };
  const note = (seq: number, omitted: number): void => {
    shortened++;
    omittedChars += omitted;
    const fields = cut[String(seq)] ?? {};
    fields.short = (fields.short ?? 0) + omitted;
    cut[String(seq)] = fields;
  };
  const fitJson = (seq: number, field: string, value: JsonValue): JsonValue => {
    if (typeof value === "string") return fitText(seq, field, value);
    const text = stringifyRecord(value);
    if (text.length <= (embedded >= caps.totalChars ? caps.afterBudgetChars : caps.fieldChars)) {
      embedded += text.length;
      return value;
    }
    return fitText(seq, field, stringifyRecord(value, 2));
  };

  return {
    add(event) {
      if (withEvents >= eventsChars && event.type !== "session.completed") {
        omittedEvents++;
        return;
      }
      if (event.type === "message.delta") {
        const list = pendingDeltas.get(event.messageId) ?? [];
        list.push(event);
        pendingDeltas.set(event.messageId, list);
        // Held until the message completes: counted meanwhile, so deltas of messages that never complete stop too.
        withEvents += event.text.length + EVENT_CHARS;
        return;
      }
      if (event.type === "message.completed") {
        const merged = pendingDeltas.get(event.messageId) ?? [];
        mergedDeltas += merged.length;
        for (const delta of merged) withEvents -= (delta as EventOf<"message.delta">).text.length + EVENT_CHARS;
        pendingDeltas.delete(event.messageId);
      }
      const before = embedded;
      events.push(clampShortFields(fitEvent(withoutUnshown(event), fitText, fitJson), caps.afterBudgetChars, note));
      withEvents += embedded - before + EVENT_CHARS;
    },
    result(header) {
      // Deltas whose message never completed are the only copy of its text: put them back in order.
      const left = [...pendingDeltas.values()].flat().map((delta) => fitEvent(delta, fitText, fitJson));
      const all = left.length === 0 ? events : [...events, ...left].sort((a, b) => a.seq - b.seq);
      const truncation: ExportTruncation = {
        ...caps,
        shortened,
        omittedChars,
        cut,
        mergedDeltas,
        ...(omittedEvents > 0 ? { eventsChars, omittedEvents } : {}),
      };
      return { header, events: all, truncation };
    },
    get count() {
      return events.length;
    },
  };
}

type FitText = (seq: number, field: string, text: string) => string;
type FitJson = (seq: number, field: string, value: JsonValue) => JsonValue;

/** The event with each long text field within the caps. */
function fitEvent(event: AgentEvent, fitText: FitText, fitJson: FitJson): AgentEvent {
  const seq = event.seq;
  switch (event.type) {
    case "message.delta":
    case "message.completed":
    case "tool.input.delta":
    case "text":
      return { ...event, text: fitText(seq, "text", event.text) };
    case "tool.started":
      return event.input === undefined ? event : { ...event, input: fitJson(seq, "input", event.input) };
    case "tool.progress":
      return event.output === undefined ? event : { ...event, output: fitText(seq, "output", event.output) };
    case "tool.completed": {
      // The page shows `output` when there is one: the structured `result` beside it is not embedded.
      const { result, ...rest } = event;
      if (event.output !== undefined) return { ...rest, output: fitText(seq, "output", event.output) };
      return result === undefined ? event : { ...rest, result: fitJson(seq, "result", result) };
    }
    case "file.changed":
      return { ...event, changes: event.changes.map((change, i) => fitChange(change, (text) => fitText(seq, `diff:${i}`, text))) };
    case "session.completed":
      return event.finalText === undefined ? event : { ...event, finalText: fitText(seq, "finalText", event.finalText) };
    case "error":
      return { ...event, message: fitText(seq, "message", event.message) };
    case "notice":
      return { ...event, text: fitText(seq, "text", event.text) };
    case "unknown":
      return { ...event, raw: fitJson(seq, "raw", event.raw) };
    default:
      return event;
  }
}

function fitChange(change: FileChange, fitText: (text: string) => string): FileChange {
  return change.diff === undefined ? change : { ...change, diff: fitText(change.diff) };
}

/** The fields fitEvent cuts to the field cap, by name: every other string is a short one (a name, a path, an id). */
const LONG_FIELDS = new Set(["text", "output", "input", "result", "raw", "message", "finalText", "diff"]);

/**
 * Any other string longer than `limit` (a 5 MB tool name or model name is a layout attack, not
 * information) is cut to `limit`, and counted.
 */
function clampShortFields(event: AgentEvent, limit: number, note: (seq: number, omitted: number) => void): AgentEvent {
  const clamp = (value: unknown, key: string | undefined, top: boolean): unknown => {
    // The long fields (top-level ones, and each change's diff) were fitted already.
    if (key !== undefined && ((top && LONG_FIELDS.has(key)) || key === "diff")) return value;
    if (typeof value === "string") {
      if (value.length <= limit) return value;
      note(event.seq, value.length - limit);
      return `${value.slice(0, limit)}…`;
    }
    if (Array.isArray(value)) return value.map((item) => clamp(item, undefined, false));
    if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const short = k.length > limit ? `${k.slice(0, limit)}…` : k;
      if (short !== k) note(event.seq, k.length - limit);
      out[short] = clamp(v, k, value === event);
    }
    return out;
  };
  return clamp(event, undefined, false) as AgentEvent;
}

/**
 * Fields the page does not show are not embedded: `raw` (the agent's record, with --include-raw;
 * except where it is the event, `unknown`), a reasoning `signature` (a replay token, often kilobytes
 * of base64) and `details` (agent extras: MCP servers, per-model usage).
 */
function withoutUnshown(event: AgentEvent): AgentEvent {
  const record = event as unknown as Record<string, unknown>;
  const drop = (record.raw !== undefined && event.type !== "unknown") || record.signature !== undefined || record.details !== undefined;
  if (!drop) return event;
  const { raw, signature: _signature, details: _details, ...rest } = record;
  return (event.type === "unknown" ? { ...rest, raw } : rest) as unknown as AgentEvent;
}

/** The first three quarters and the last quarter of `room` characters, with a line saying what is missing between. */
export function cutMiddle(text: string, room: number): string {
  const head = Math.floor(room * 0.75);
  const tail = room - head;
  const missing = text.length - room;
  return `${text.slice(0, head)}\n… [${missing} characters not embedded] …\n${tail > 0 ? text.slice(text.length - tail) : ""}`;
}
