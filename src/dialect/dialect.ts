/**
 * The contract every agent dialect implements: records in (JSON objects or text lines), event
 * drafts out. An agent dialect is one folder under src/agents/ plus docs/dialects/<name>.md.
 */
import type { AgentEventDraft, JsonObject, JsonValue } from "../model/events.ts";
import type { InputRecord } from "../framing/ndjson/create-ndjson-parser.ts";
import type { IssueCode } from "../errors.ts";

/** What a decoder may report about a record it could not fully understand. */
export interface DecodeProblem {
  readonly code: IssueCode;
  readonly message: string;
  readonly severity?: "info" | "warning" | "error";
}

/** Handed to a decoder with each record. */
export interface DecodeContext {
  /** 1-based line of the record. */
  readonly line: number;
  /** Reports a problem with the current record; it becomes an `Issue` with this line. */
  report(problem: DecodeProblem): void;
  /**
   * The text of a held string (framing/held-strings.ts: a long tool output the reader keeps as its bytes for a
   * writer of our own format), for a decoder whose dialect lets them through (`Dialect.passesHeldStrings`)
   * and that reads this output's text itself; any other value as it is. Absent when nothing is held.
   */
  heldText?(value: string | undefined): string | undefined;
}

/** Turns one agent's records into events. Holds state across records (a tool call spread over lines). */
export interface DialectDecoder {
  /** Decodes one record into zero or more event drafts; never throws on bad input. */
  decode(record: InputRecord, context: DecodeContext): AgentEventDraft[];
  /** Closes whatever is still open when the input ends (the pipeline calls it once). */
  end(context: DecodeContext): AgentEventDraft[];
}

/** One agent dialect. */
export interface Dialect {
  /** The id used on the command line: `--from codex`. */
  readonly name: string;
  /** One line for `agentstream formats`. */
  readonly description: string;
  /**
   * True when this record, among the first of a stream, shows the stream is in this dialect.
   * Detection runs dialects in registry order, so a specific dialect must not claim a generic one's records.
   */
  detect(record: InputRecord): boolean;
  /**
   * True for dialects that read text lines themselves (Aider, Harmony). For the others the pipeline
   * turns text lines into `text` events without asking the decoder.
   */
  readonly readsText?: boolean;
  /** A fresh decoder for one stream. */
  createDecoder(): DialectDecoder;
  /**
   * When `record` is the one a stream of this dialect opens with (Claude's `system/init`, Codex's
   * `thread.started`), the session it opens, else undefined. The reader uses it to find where one
   * session ends and the next begins in concatenated output (`cat a.jsonl b.jsonl | ...`).
   */
  startsSession?(record: InputRecord): SessionOpening | undefined;
  /**
   * Whether this record's decoder may get held strings (framing/held-strings.ts) in place of its long tool
   * outputs: it hands them on unchanged into a `tool.completed` (`output`, `result`) and reads their text only
   * through `DecodeContext.heldText`. Any other record (and every record of a dialect without this) is decoded
   * with its texts. Only writers of our own format ask for held strings.
   */
  passesHeldStrings?(value: JsonValue): boolean;
}

/** What a stream's opening record says about its session. */
export interface SessionOpening {
  /** The agent's session id, when the record names one: an opening with the same id continues the session. */
  readonly sessionId?: string;
}

/** Drafts for an `unknown` event: the record is kept verbatim, with the reason. */
export function unknownRecord(raw: JsonValue, reason: string): AgentEventDraft {
  return { type: "unknown", raw, reason };
}

/** A stream reader of JSON records: what most format decoders are (their text lines are the pipeline's `text` events). */
export interface JsonRecordReader {
  decodeJson(value: JsonObject, context: DecodeContext): AgentEventDraft[];
  /** Closes what is still open when the input ends. */
  end(): AgentEventDraft[];
}

/** The decoder for a reader of JSON records: text records give nothing. */
export function jsonRecordDecoder(reader: JsonRecordReader): DialectDecoder {
  return {
    decode: (record, context) => (record.kind === "json" ? reader.decodeJson(record.value, context) : []),
    end: () => reader.end(),
  };
}
