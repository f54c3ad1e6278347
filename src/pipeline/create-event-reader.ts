/**
 * The synchronous pipeline: bytes → records (ndjson/) → dialect detection → dialect decoder →
 * stages (stream repair) → envelope (v, seq, source, sessionId) → `onEvent`.
 * No I/O: the adapters in read-events.ts and agent-event-stream.ts feed it.
 */
import { AgentStreamError, type Issue } from "../errors.ts";
import { MODEL_VERSION, type AgentEvent, type AgentEventDraft, type EventSource, type JsonValue } from "../model/events.ts";
import {
  createFramingParser,
  type FramingStats,
  type InputRecord,
  type JsonRecord,
  type NdjsonOptions,
  type NdjsonParser,
  type SkimOptions,
  type TextRecord,
} from "../framing/ndjson/create-ndjson-parser.ts";
import type { EndsOptions } from "../framing/ndjson/tool-output-ends.ts";
import type { DecodeContext, DecodeProblem, Dialect, DialectDecoder } from "../dialect/dialect.ts";
import { detectDialect, getDialect } from "../dialects.ts";
import type { EventStage } from "../stages/stage.ts";
import { createRepairStage, type RepairOptions, type RepairStats } from "../stages/repair/create-repair-stage.ts";
import { createRedactionStage } from "../stages/redact/create-redaction-stage.ts";
import { createJoinStage } from "../stages/join/create-join-stage.ts";
import { mayHoldSecretRaw, redactText, redactValue, type RedactionCounts } from "../stages/redact/redact-text.ts";
import { HELD_STRINGS_SKIM, HeldRecord } from "./_held-strings.ts";
import type { HeldStrings } from "../framing/held-strings.ts";

export type { EventStage };

/** Options for reading agent events. */
export interface ReadOptions extends NdjsonOptions {
  /** Dialect name, a Dialect object, or `auto` to detect it from the first records. @defaultValue "auto" */
  dialect?: string | Dialect;
  /** Attach each source record to its events as `raw`. @defaultValue false */
  includeRaw?: boolean;
  /** Stop at the first input issue of severity warning or worse, by throwing `AgentStreamError` with code `strict-issue`. */
  strict?: boolean;
  /** Receives every input issue (framing, decoding, repair). */
  onIssue?: (issue: Issue) => void;
  /** How many records auto-detection may look at before it settles for `json`. @defaultValue 64 */
  detectLimit?: number;
  /**
   * Stream repair (snapshots sent as deltas, repeated text, final messages after their deltas,
   * ordering faults): on by default; `false` shows the raw stream; an object tunes the thresholds.
   * @defaultValue true
   */
  repair?: boolean | RepairOptions;
  /**
   * Replace secrets (API keys, tokens, passwords, private keys) with `[REDACTED:<kind>]` in every
   * event, in `raw` records and in issue messages; streamed text is held back only as long as its
   * tail could still grow into a secret. The CLI turns it on (docs/redaction.md).
   * @defaultValue false
   */
  redact?: boolean;
  /** More stages, run on every draft after repair and before the envelope is stamped. */
  stages?: readonly EventStage[];
  /**
   * The `time` of an event whose input gave it none, asked for once per such event when its envelope is
   * stamped (`runAgent` gives the moment the agent's output that made it arrived). Without it such events have no `time`.
   */
  defaultTime?: () => string;
  /**
   * `summary`: read only what the session's facts need (`createSummaryBuilder`, usage reports). Long
   * tool outputs (a tool result's `content`, `stdout`, `stderr`, `aggregated_output`,
   * `formatted_output`, from 4 KiB) are skipped by a byte scan that still checks them, so events
   * carry them as `""`. With `redact`, `message.delta` events carry `text: ""` too: a message is redacted
   * once, when it completes (docs/redaction.md). Every other field, every issue, repair and redaction count
   * is as with `all` (docs/benchmarks.md, "Selective reading").
   * @defaultValue "all"
   */
  fields?: "all" | "summary";
}

/**
 * The long strings `fields: "summary"` skips: tool output, which no summary fact reads. Lines from 8 KiB
 * are skimmed: with the WebAssembly scan, skipping a 4 KiB output of an 8 KiB line costs less than
 * decoding and parsing it (docs/benchmarks.md).
 */
const SUMMARY_SKIM = {
  keys: new Set(["stdout", "stderr", "aggregated_output", "formatted_output"]),
  toolResultKeys: new Set(["content"]),
  minBytes: 4096,
  minLineBytes: 8 * 1024,
} as const;
/** The shortest tool output `toolOutputEnds` cuts: shorter ones cost little to read whole. */
const ENDS_MIN_BYTES = 24 * 1024;
/** The shortest line `toolOutputEnds` looks into (the framer's default). */
const ENDS_MIN_LINE_BYTES = 64 * 1024;

/** Health counters: what went wrong in the input and what was repaired. */
export interface HealthStats extends RepairStats {
  parseErrors: number;
  unknownRecords: number;
}

/** Counts for `summary` and health reports. */
export interface RecordStats {
  /** Lines (or json-seq texts / pretty objects) read, blank ones included. */
  total: number;
  /** JSON records that a dialect understood. */
  events: number;
  blank: number;
  /** Non-JSON lines kept as `text` events (or read by a text dialect). */
  text: number;
  /** Lines that looked like JSON and were rejected. */
  invalid: number;
  tooLong: number;
  /** Bytes in the lines counted by `tooLong`. */
  tooLongBytes: number;
  /** JSON records no rule understood, kept as `unknown` events. */
  unknown: number;
}

export interface EventReaderCallbacks {
  /** Every event, in order, as soon as it is decoded. */
  onEvent(event: AgentEvent): void;
  /**
   * A new session starts in the same input (concatenated output: `cat a.jsonl b.jsonl`): called
   * after the previous session's events (its open messages and tools completed) and before the new one's.
   */
  onSessionBoundary?(boundary: SessionBoundary): void;
}

/** Where one session of a concatenated input ends and the next begins. */
export interface SessionBoundary {
  /** 0-based number of the session that starts here (1 for the second). */
  readonly session: number;
  /** The dialect of the session that starts. */
  readonly dialect: string;
  /** The dialect of the session that ended. */
  readonly previousDialect: string;
  /** 1-based input line of its first record. */
  readonly line: number;
  /** The input's counts up to the end of the previous session. */
  readonly statsBefore: RecordStats;
  /** The input's health counters up to the end of the previous session. */
  readonly healthBefore: HealthStats;
  /** Secrets redacted in the input up to the end of the previous session, by kind. */
  readonly redactionsBefore: RedactionCounts;
}

/** A push reader: feed bytes or text, get events. */
export interface EventReader {
  feed(chunk: Uint8Array | string): void;
  /**
   * Adds an event that did not come from the input (a runner's heartbeat, a line the agent wrote on
   * stderr): stamped like every other event, in order, with no source line and no raw record.
   */
  inject(draft: AgentEventDraft): void;
  end(): void;
  /** The dialect in use (the current session's), once detected (or given). */
  readonly dialect: string | undefined;
  /** Sessions seen so far: 1, or more when sessions were concatenated. */
  readonly sessions: number;
  readonly stats: RecordStats;
  readonly framing: FramingStats;
  readonly health: HealthStats;
  /** Secrets replaced so far, by kind (empty when `redact` is off). */
  readonly redactions: RedactionCounts;
}

/**
 * Creates the synchronous pipeline that turns an agent's output into events.
 * @example
 * const reader = createEventReader({ onEvent: (e) => console.log(e.type) }, { dialect: "auto" });
 * reader.feed(chunk); reader.end();
 */
export function createEventReader(callbacks: EventReaderCallbacks, options: ReadOptions = {}): EventReader {
  return readerOf(new EventPipeline(checked(callbacks), options, {}));
}

/**
 * Reading the package does not offer, each owned by the one consumer that needs it: a writer of our own format
 * splices the strings it holds, the terminal view is given a long output as the lines it shows and a run of deltas
 * as the one text it writes. Each changes what an event carries, so none is a `ReadOptions` word. Not part of the
 * package's API.
 */
export interface ConsumerReading {
  /**
   * For a writer of our own format that splices held strings (the record sink's `--to agentstream`, `run`'s logs;
   * framing/held-strings.ts): long tool outputs may reach `onEvent` as placeholders of `held`, which the caller
   * splices (or resolves) and releases. Ignored with `fields: "summary"` or `includeRaw`.
   */
  readonly held?: HeldStrings | undefined;
  /**
   * For a view that shows only the first and last lines of a long tool output (`render`): the long outputs
   * `fields: "summary"` would skip (from 24 KiB, in lines of 64 KiB or more) are read as those lines, the lines
   * between empty (their count kept, the first holding `marker`), when their text is checked whole and holds
   * nothing the secret check could flag; any other string is read in full. Where the WebAssembly scan is not
   * there, nothing is cut. Ignored with `fields: "summary"`.
   */
  readonly toolOutputEnds?: EndsOptions | undefined;
  /**
   * For a view (`render`): the `message.delta` events of one message that follow each other in one chunk given
   * to `feed` reach `onEvent` as one event, their texts joined (the first one's `position`, `time` and `source`);
   * likewise a tool call's `tool.input.delta`s. Nothing waits past the chunk. Every stage after repair, and the
   * view, then pays once per run of deltas instead of once per delta. Fewer events than records, so never for a
   * writer. Ignored with `includeRaw` (each event keeps its record).
   */
  readonly joinDeltas?: boolean | undefined;
  /**
   * For tests: the skim's keys and thresholds (forced onto every string, say), in place of those `fields`,
   * `held` or `toolOutputEnds` choose.
   */
  readonly skim?: SkimOptions | undefined;
}

/** `createEventReader` with what one consumer reads for itself (`ConsumerReading`). Not part of the package's API. */
export function createEventReaderFor(callbacks: EventReaderCallbacks, options: ReadOptions, consumer: ConsumerReading): EventReader {
  return readerOf(new EventPipeline(checked(callbacks), options, consumer));
}

function checked(callbacks: EventReaderCallbacks): EventReaderCallbacks {
  if (typeof callbacks?.onEvent !== "function") {
    throw new AgentStreamError(
      "invalid-option",
      "createEventReader needs callbacks with an onEvent function: createEventReader({ onEvent: (event) => ... })",
    );
  }
  return callbacks;
}

function readerOf(pipeline: EventPipeline): EventReader {
  return {
    feed(chunk) {
      pipeline.framer.feed(chunk);
      pipeline.settleStages();
    },
    inject(draft) {
      pipeline.inject(draft);
    },
    end() {
      pipeline.end();
    },
    get dialect() {
      return pipeline.dialect?.name;
    },
    get stats(): RecordStats {
      return pipeline.countStats();
    },
    get sessions() {
      return pipeline.sessions;
    },
    get framing() {
      return pipeline.framer.stats;
    },
    get redactions(): RedactionCounts {
      return { ...pipeline.redactionStage?.counts };
    },
    get health(): HealthStats {
      return pipeline.countHealth();
    },
  };
}

/** Stages chosen by the options: repair, then delta joining, then redaction, then the caller's own. */
function chooseStages(
  options: ReadOptions,
  repairStage: ReturnType<typeof createRepairStage> | undefined,
  joinStage: EventStage | undefined,
  redactionStage: ReturnType<typeof createRedactionStage> | undefined,
): EventStage[] {
  return [
    ...(repairStage === undefined ? [] : [repairStage]),
    ...(joinStage === undefined ? [] : [joinStage]),
    ...(redactionStage === undefined ? [] : [redactionStage]),
    ...(options.stages ?? []),
  ];
}

/** An envelope given the default time: `time` after the draft's own fields, then the session and source it lacked. */
function withTime(
  event: Record<string, unknown>,
  time: string,
  sessionId: string | undefined,
  source: EventSource | undefined,
): Record<string, unknown> {
  event.time = time;
  if (sessionId !== undefined) event.sessionId = sessionId;
  if (source !== undefined) event.source = source;
  return event;
}

function chosenDialect(options: ReadOptions): Dialect | undefined {
  if (options.dialect === undefined || options.dialect === "auto") return undefined;
  return typeof options.dialect === "string" ? getDialect(options.dialect) : options.dialect;
}

/** The state of one event reader (framer, dialect, decoder, stages, session boundaries) and its steps. */
class EventPipeline {
  readonly callbacks: EventReaderCallbacks;
  readonly onEvent: (event: AgentEvent) => void;
  readonly options: ReadOptions;
  readonly includeRaw: boolean;
  readonly strict: boolean;
  readonly detectLimit: number;
  readonly repairStage: ReturnType<typeof createRepairStage> | undefined;
  readonly redactionStage: ReturnType<typeof createRedactionStage> | undefined;
  readonly stages: EventStage[];
  /** Some stage holds drafts only until the end of a chunk (`EventStage.settle`). */
  readonly settling: boolean;
  readonly emitters: ((draft: AgentEventDraft) => void)[];
  readonly file: string | undefined;
  readonly defaultTime: (() => string) | undefined;
  dialect: Dialect | undefined;
  readonly detecting: boolean;
  // Session boundaries in concatenated output: has the current session's opening record been read, and its id.
  sessions = 1;
  sessionOpened = false;
  sessionEnded = false; // the root session's session.completed was emitted
  sessionKey: string | undefined = undefined;
  decoder: DialectDecoder | undefined;
  readonly held: InputRecord[] = []; // records read while detecting
  seq = 0;
  rootSessionId: string | undefined = undefined;
  sawJson = false;
  unknown = 0;
  currentLine = 0;
  currentRaw: JsonValue | undefined = undefined;
  redactedRaw: { readonly from: JsonValue; readonly to: JsonValue } | undefined = undefined;
  readonly context: DecodeContext;
  readonly framer: NdjsonParser;
  /** The strings held for the record being read, when the reader holds strings for its writer. */
  readonly heldStrings: HeldRecord | undefined;
  readonly consumer: ConsumerReading;

  constructor(callbacks: EventReaderCallbacks, options: ReadOptions, consumer: ConsumerReading) {
    this.callbacks = callbacks;
    this.consumer = consumer;
    this.onEvent = callbacks.onEvent;
    this.options = options;
    this.includeRaw = options.includeRaw === true;
    this.strict = options.strict === true;
    this.detectLimit = options.detectLimit ?? 64;
    this.repairStage =
      options.repair === false
        ? undefined
        : createRepairStage(options.repair === true || options.repair === undefined ? {} : options.repair, {
            // ralph's contract: repeated large deltas are said (once per stream), not only counted.
            onLargeDeltas: (deltas, chars) =>
              this.context.report({
                code: "large-deltas",
                severity: "warning",
                message: `${deltas} message deltas over ${chars} characters: the agent may be sending the text so far (snapshots) as deltas; repair keeps each character once (docs/repair.md)`,
              }),
          });
    // Selective reading: no summary fact reads a delta, so a message is redacted once, when it completes.
    this.redactionStage =
      options.redact === true ? createRedactionStage(options.fields === "summary" ? { messageDeltas: "at-completion" } : {}) : undefined;
    const joinStage =
      consumer.joinDeltas === true && !this.includeRaw ? createJoinStage({ currentSource: () => this.currentSource() }) : undefined;
    this.stages = chooseStages(options, this.repairStage, joinStage, this.redactionStage);
    this.settling = this.stages.some((stage) => stage.settle !== undefined);
    this.emitters = this.createEmitters();
    this.file = options.file;
    this.defaultTime = options.defaultTime;
    this.dialect = chosenDialect(options);
    this.detecting = this.dialect === undefined;
    this.decoder = this.dialect?.createDecoder();
    this.context = this.createContext();
    const held = consumer.held;
    const holds = held !== undefined && options.fields !== "summary" && !this.includeRaw;
    this.heldStrings = holds ? new HeldRecord(held) : undefined;
    this.framer = this.createFramer();
  }

  private createContext(): DecodeContext {
    const pipeline = this;
    return {
      get line() {
        return pipeline.currentLine;
      },
      report(problem) {
        const issue: Issue = {
          code: problem.code,
          severity: problem.severity ?? "warning",
          message: problem.message,
          line: pipeline.currentLine,
        };
        pipeline.reportIssue(pipeline.file === undefined ? issue : { ...issue, file: pipeline.file });
      },
      heldText(value) {
        return pipeline.heldStrings === undefined ? value : pipeline.heldStrings.strings.text(value);
      },
    };
  }

  private createFramer(): NdjsonParser {
    const options = this.options;
    // Redaction keeps every skipped string that could hold a secret, so its counts stay exact
    // (and a held string, never redacted, holds none).
    const keep = this.redactionStage === undefined ? {} : { keep: mayHoldSecretRaw };
    const held = this.heldStrings;
    if (held !== undefined) {
      return createFramingParser(
        {
          onRecord: (record) => {
            this.onRecord(record);
            if (held.active && this.held.length === 0) held.settle();
          },
          onIssue: (issue) => this.reportIssue(issue),
        },
        { ...options, skim: this.consumer.skim ?? { ...HELD_STRINGS_SKIM, ...keep }, holdStrings: held },
      );
    }
    const ends = this.consumer.toolOutputEnds;
    const skim =
      this.consumer.skim ??
      (options.fields === "summary"
        ? { ...SUMMARY_SKIM, ...keep }
        : ends !== undefined
          ? { ...SUMMARY_SKIM, ...keep, minBytes: ENDS_MIN_BYTES, minLineBytes: ENDS_MIN_LINE_BYTES, ends }
          : undefined);
    return createFramingParser(
      { onRecord: (record) => this.onRecord(record), onIssue: (issue) => this.reportIssue(issue) },
      skim === undefined ? options : { ...options, skim },
    );
  }

  private onRecord(record: InputRecord): void {
    if (this.decoder !== undefined) {
      const next = this.nextSession(record);
      if (next !== undefined && !next.opening && record.kind === "json") return this.decodeOrSwitch(record, next.dialect);
      if (next !== undefined) this.startSession(next.dialect, record);
      return this.decode(record);
    }
    this.held.push(record);
    const found = detectDialect(record);
    if (found !== undefined) this.settle(found);
    else if (this.held.length >= this.detectLimit) this.settle(getDialect("json"));
  }

  /** The record attached as `raw`, redacted once per record however many events it gives. */
  private rawToAttach(raw: JsonValue): JsonValue {
    if (this.redactionStage === undefined) return raw;
    if (this.redactedRaw?.from !== raw) this.redactedRaw = { from: raw, to: redactValue(raw) };
    return this.redactedRaw.to;
  }

  reportIssue(found: Issue): void {
    // Diagnostics quote input (a snippet of a bad line): they must not carry a secret either.
    const message = this.redactionStage === undefined ? found.message : redactText(found.message);
    const issue = message === found.message ? found : { ...found, message };
    this.options.onIssue?.(issue);
    if (this.strict && issue.severity !== "info") {
      throw new AgentStreamError("strict-issue", `${issue.code}: ${issue.message} (line ${issue.line ?? 0})`, { issue });
    }
  }

  /** The source of an event made from the record being read now. */
  private currentSource(): EventSource | undefined {
    const dialect = this.dialect;
    if (dialect === undefined) return undefined;
    return this.currentLine > 0 ? { dialect: dialect.name, line: this.currentLine } : { dialect: dialect.name };
  }

  /** Lets each stage emit what it held only for more of the chunk just read (`EventStage.settle`), in stage order. */
  settleStages(): void {
    if (!this.settling) return;
    for (let index = 0; index < this.stages.length; index++) {
      (this.stages[index] as EventStage).settle?.(this.emitters[index + 1] as (draft: AgentEventDraft) => void);
    }
  }

  private stamp(draft: AgentEventDraft): void {
    if (draft.type === "session.started" && draft.parentSessionId === undefined && draft.sessionId !== undefined)
      this.rootSessionId = draft.sessionId;
    // One object literal per event (no properties added afterwards, so every event of a type shares one shape).
    const sessionId = draft.sessionId ?? this.rootSessionId;
    const source = draft.source ?? this.currentSource();
    const v = MODEL_VERSION;
    const n = this.seq++;
    const time = draft.time === undefined ? this.defaultTime?.() : undefined;
    let event: Record<string, unknown>;
    // Deltas, most of a stream, have a spread of their own: a spread that sees one shape copies it
    // fast, one that sees every event type's does not.
    if (time !== undefined) event = withTime({ v, seq: n, ...draft }, time, sessionId, source);
    else if (draft.type === "message.delta" && sessionId !== undefined && source !== undefined)
      event = { v, seq: n, ...draft, sessionId, source };
    else if (sessionId !== undefined && source !== undefined) event = { v, seq: n, ...draft, sessionId, source };
    else if (sessionId !== undefined) event = { v, seq: n, ...draft, sessionId };
    else if (source !== undefined) event = { v, seq: n, ...draft, source };
    else event = { v, seq: n, ...draft };
    if (this.includeRaw && draft.raw === undefined && this.currentRaw !== undefined) event.raw = this.rawToAttach(this.currentRaw);
    if (this.heldStrings?.active === true) this.heldStrings.noteEvent(event as unknown as AgentEvent);
    this.onEvent(event as unknown as AgentEvent);
  }

  /**
   * `emitters[i]` hands a draft to stage i (the last one to the envelope). Made once, not a closure per
   * draft and stage: every delta passes here.
   */
  private createEmitters(): ((draft: AgentEventDraft) => void)[] {
    const emitters: ((draft: AgentEventDraft) => void)[] = [];
    emitters[this.stages.length] = (draft) => this.stamp(draft);
    for (let index = this.stages.length - 1; index >= 0; index--) {
      const stage = this.stages[index] as EventStage;
      const next = emitters[index + 1] as (draft: AgentEventDraft) => void;
      emitters[index] = (draft) => stage.push(draft, next);
    }
    return emitters;
  }

  private runStages(draft: AgentEventDraft, index: number): void {
    (this.emitters[index] as (draft: AgentEventDraft) => void)(draft);
  }

  private emitDrafts(drafts: readonly AgentEventDraft[]): void {
    for (const draft of drafts) {
      if (draft.type === "unknown") this.unknown++;
      if (
        draft.type === "session.completed" &&
        (draft.sessionId === undefined || this.rootSessionId === undefined || draft.sessionId === this.rootSessionId)
      )
        this.sessionEnded = true;
      if (this.stages.length === 0) this.stamp(draft);
      else this.runStages(draft, 0);
    }
  }

  private decode(input: InputRecord): void {
    // A decoder gets held strings only where its dialect lets them through; elsewhere their texts.
    const record = input.kind === "json" && this.heldStrings?.active === true ? this.heldStrings.resolveFor(this.dialect, input) : input;
    this.currentLine = record.line;
    if (record.kind === "text" && record.dropped !== undefined) {
      this.currentRaw = undefined;
      this.emitDrafts([droppedNotice(record)]);
      return;
    }
    if (record.kind === "text" && !(this.dialect?.readsText ?? false)) {
      if (record.invalid === true) return; // rejected JSON: already reported and counted

      this.currentRaw = undefined;
      this.emitDrafts([{ type: "text", text: record.text, position: this.sawJson ? "interleaved" : "preamble" }]);
      return;
    }
    if (record.kind === "json") this.sawJson = true;
    this.noteOpening(record);
    this.currentRaw = record.kind === "json" ? record.value : undefined;
    this.emitDrafts((this.decoder as DialectDecoder).decode(record, this.context));
  }

  private noteOpening(record: InputRecord): void {
    const opening = this.dialect?.startsSession?.(record);
    if (opening === undefined) return;
    this.sessionOpened = true;
    this.sessionKey = opening.sessionId ?? this.sessionKey;
  }

  /**
   * The dialect of a new session that `record` opens, if it opens one: a second opening record of
   * the current dialect for another session (or after the session ended), or, when detecting, a
   * record another dialect claims and the current one does not (its opening record, when that
   * dialect says how its streams open).
   */
  private nextSession(record: InputRecord): { readonly dialect: Dialect; readonly opening: boolean } | undefined {
    const dialect = this.dialect;
    if (record.kind !== "json" || dialect === undefined) return undefined;
    const opening = dialect.startsSession?.(record);
    if (opening !== undefined) {
      // The same id continues the session (Claude repeats its init per stream-json input turn) until it has ended.
      const sameSession = opening.sessionId !== undefined && opening.sessionId === this.sessionKey;
      if (!this.sessionOpened || (sameSession && !this.sessionEnded)) return undefined;
      // Detected afresh: Cursor's and Qwen's init records look like Claude's.
      return { dialect: this.detecting ? (detectDialect(record) ?? dialect) : dialect, opening: true };
    }
    if (!this.detecting || dialect.detect(record)) return undefined;
    const found = detectDialect(record);
    if (found === undefined || found === dialect) return undefined;
    return { dialect: found, opening: found.startsSession?.(record) !== undefined };
  }

  /**
   * Another dialect claims `record`, but it is not how that dialect's streams open (a capture cut
   * at its start, or Qwen and Cursor records that Claude's detect() also claims): the current
   * decoder has the first word. Only when it understands nothing of the record (all `unknown`)
   * does the other dialect's session start here; else the record is kept, with what it reported.
   */
  private decodeOrSwitch(record: JsonRecord, candidate: Dialect): void {
    this.currentLine = record.line;
    const problems: DecodeProblem[] = [];
    const probe: DecodeContext = { line: record.line, report: (problem) => problems.push(problem) };
    const drafts = (this.decoder as DialectDecoder).decode(record, probe);
    if (drafts.length > 0 && drafts.every((draft) => draft.type === "unknown")) {
      this.startSession(candidate, record);
      this.decode(record);
      return;
    }
    this.sawJson = true;
    this.noteOpening(record);
    this.currentRaw = record.value;
    for (const problem of problems) this.context.report(problem);
    this.emitDrafts(drafts);
  }

  private startSession(next: Dialect, record: InputRecord): void {
    const statsBefore = this.countStats();
    // The boundary record is already counted by the framer: it belongs to the new session.
    const before: RecordStats = { ...statsBefore, total: statsBefore.total - 1, events: statsBefore.events - 1 };
    this.currentRaw = undefined;
    this.emitDrafts((this.decoder as DialectDecoder).end(this.context));
    this.endStages();
    const previousDialect = (this.dialect as Dialect).name;
    const healthBefore = this.countHealth();
    this.dialect = next;
    this.decoder = next.createDecoder();
    this.rootSessionId = undefined;
    this.sessionOpened = false;
    this.sessionEnded = false;
    this.sessionKey = undefined;
    this.sawJson = false;
    const session = this.sessions++; // not inside the optional call below: it would not run without a callback
    const redactionsBefore = { ...this.redactionStage?.counts };
    this.callbacks.onSessionBoundary?.({
      session,
      dialect: next.name,
      previousDialect,
      line: record.line,
      statsBefore: before,
      healthBefore,
      redactionsBefore,
    });
  }

  private endStages(): void {
    const finish = (index: number): void => {
      const stage = this.stages[index];
      if (stage === undefined) return;
      stage.end((draft) => this.runStages(draft, index + 1));
      finish(index + 1);
    };
    finish(0);
  }

  private settle(chosen: Dialect): void {
    this.dialect = chosen;
    this.decoder = chosen.createDecoder();
    for (const record of this.held.splice(0)) this.decode(record);
  }

  countHealth(): HealthStats {
    const repairs = this.repairStage?.stats ?? { repairs: 0, largeDeltas: 0, protocolViolations: 0 };
    return { ...repairs, parseErrors: this.framer.stats.invalid, unknownRecords: this.unknown };
  }

  countStats(): RecordStats {
    const f = this.framer.stats;
    return {
      total: f.lines,
      events: f.json - this.unknown,
      blank: f.blank,
      text: f.text,
      invalid: f.invalid,
      tooLong: f.tooLong,
      tooLongBytes: f.tooLongBytes,
      unknown: this.unknown,
    };
  }

  inject(draft: AgentEventDraft): void {
    const line = this.currentLine;
    const raw = this.currentRaw;
    this.currentLine = 0;
    this.currentRaw = undefined;
    // Past repair (it is not the agent's stream) but through redaction and the caller's stages: a stderr line can hold a secret too.
    if (this.stages.length === 0) this.stamp(draft);
    else this.runStages(draft, this.repairStage === undefined ? 0 : 1);
    this.currentLine = line;
    this.currentRaw = raw;
  }

  end(): void {
    this.framer.end();
    if (this.decoder === undefined) {
      if (this.held.some((r) => r.kind === "json")) {
        this.reportIssue({
          code: "dialect-mismatch",
          severity: "info",
          message: "no agent dialect recognised; records kept as opaque events (use --from to choose one)",
          line: 0,
        });
      }
      this.settle(getDialect("json"));
    }
    this.heldStrings?.settle(); // records held while detecting are read now
    this.currentLine = 0;
    this.currentRaw = undefined;
    this.emitDrafts((this.decoder as DialectDecoder).end(this.context));
    this.reportParseErrorRate();
    this.endStages();
  }

  private reportParseErrorRate(): void {
    const f = this.framer.stats;
    const content = f.lines - f.blank;
    if (f.invalid > 0 && f.invalid * 2 > content) {
      this.reportIssue({
        code: "parse-error-rate",
        severity: "warning",
        message: `${f.invalid} of ${content} records failed to parse: is this the right input (or --framing)?`,
        line: 0,
      });
    }
  }
}

/**
 * A record the framer discarded whole (a line past `maxLineBytes`), as an event in its place: a
 * consumer of the converted stream learns what was lost, where and how big it was, not only stderr.
 */
function droppedNotice(record: TextRecord): AgentEventDraft {
  const code = record.dropped ?? "line-too-long";
  return {
    type: "notice",
    kind: "record-dropped",
    level: "warning",
    text: `line ${record.line}: a ${record.length}-byte record was discarded (${code})`,
    details: { code, line: record.line, offset: record.offset, bytes: record.length },
  };
}
