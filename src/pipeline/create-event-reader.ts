/**
 * The synchronous pipeline: bytes → records (ndjson/) → dialect detection → dialect decoder →
 * stages (stream repair) → envelope (v, seq, source, sessionId) → `onEvent`.
 * No I/O: the adapters in read-events.ts and agent-event-stream.ts feed it.
 */
import { AgentStreamError, type Issue } from "../errors.ts";
import { MODEL_VERSION, type AgentEvent, type AgentEventDraft, type JsonValue } from "../model/events.ts";
import {
  createNdjsonParser,
  type FramingStats,
  type InputRecord,
  type JsonRecord,
  type NdjsonOptions,
  type TextRecord,
} from "../framing/ndjson/create-ndjson-parser.ts";
import type { DecodeContext, DecodeProblem, Dialect, DialectDecoder } from "../dialect/dialect.ts";
import { detectDialect, getDialect } from "../dialects.ts";
import type { EventStage } from "../stages/stage.ts";
import { createRepairStage, type RepairOptions, type RepairStats } from "../stages/repair/create-repair-stage.ts";
import { createRedactionStage } from "../stages/redact/create-redaction-stage.ts";
import { mayHoldSecretRaw, redactText, redactValue, type RedactionCounts } from "../stages/redact/redact-text.ts";

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
   * `summary`: read only what the session's facts need (`createSummaryBuilder`, usage reports). Long
   * tool outputs (a tool result's `content`, `stdout`, `stderr`, `aggregated_output`,
   * `formatted_output`, from 4 KiB) are skipped by a byte scan that still checks them, so events
   * carry them as `""`; every other field, every issue, repair and redaction count is as with `all`
   * (docs/benchmarks.md, "Selective reading").
   * @defaultValue "all"
   */
  fields?: "all" | "summary";
}

/** The long strings `fields: "summary"` skips: tool output, which no summary fact reads. */
const SUMMARY_SKIM = {
  keys: new Set(["stdout", "stderr", "aggregated_output", "formatted_output"]),
  toolResultKeys: new Set(["content"]),
  minBytes: 4096,
} as const;

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
  if (typeof callbacks?.onEvent !== "function") {
    throw new AgentStreamError(
      "invalid-option",
      "createEventReader needs callbacks with an onEvent function: createEventReader({ onEvent: (event) => ... })",
    );
  }
  const { onEvent } = callbacks;
  const includeRaw = options.includeRaw === true;
  const strict = options.strict === true;
  const detectLimit = options.detectLimit ?? 64;
  const repairStage =
    options.repair === false ? undefined : createRepairStage(options.repair === true || options.repair === undefined ? {} : options.repair);
  const redactionStage = options.redact === true ? createRedactionStage() : undefined;
  const stages = [
    ...(repairStage === undefined ? [] : [repairStage]),
    ...(redactionStage === undefined ? [] : [redactionStage]),
    ...(options.stages ?? []),
  ];
  const file = options.file;
  let dialect: Dialect | undefined =
    options.dialect === undefined || options.dialect === "auto"
      ? undefined
      : typeof options.dialect === "string"
        ? getDialect(options.dialect)
        : options.dialect;
  const detecting = dialect === undefined;
  // Session boundaries in concatenated output: has the current session's opening record been read, and its id.
  let sessions = 1;
  let sessionOpened = false;
  let sessionEnded = false; // the root session's session.completed was emitted
  let sessionKey: string | undefined;
  let decoder: DialectDecoder | undefined = dialect?.createDecoder();
  const held: InputRecord[] = []; // records read while detecting
  let seq = 0;
  let rootSessionId: string | undefined;
  let sawJson = false;
  let unknown = 0;
  let currentLine = 0;
  let currentRaw: JsonValue | undefined;

  let redactedRaw: { readonly from: JsonValue; readonly to: JsonValue } | undefined;
  /** The record attached as `raw`, redacted once per record however many events it gives. */
  function rawToAttach(raw: JsonValue): JsonValue {
    if (redactionStage === undefined) return raw;
    if (redactedRaw?.from !== raw) redactedRaw = { from: raw, to: redactValue(raw) };
    return redactedRaw.to;
  }

  function reportIssue(found: Issue): void {
    // Diagnostics quote input (a snippet of a bad line): they must not carry a secret either.
    const message = redactionStage === undefined ? found.message : redactText(found.message);
    const issue = message === found.message ? found : { ...found, message };
    options.onIssue?.(issue);
    if (strict && issue.severity !== "info") {
      throw new AgentStreamError("strict-issue", `${issue.code}: ${issue.message} (line ${issue.line ?? 0})`, { issue });
    }
  }

  const context: DecodeContext = {
    get line() {
      return currentLine;
    },
    report(problem) {
      const issue: Issue = { code: problem.code, severity: problem.severity ?? "warning", message: problem.message, line: currentLine };
      reportIssue(file === undefined ? issue : { ...issue, file });
    },
  };

  function stamp(draft: AgentEventDraft): void {
    if (draft.type === "session.started" && draft.parentSessionId === undefined && draft.sessionId !== undefined)
      rootSessionId = draft.sessionId;
    // One object literal per event (no properties added afterwards, so every event of a type shares one shape).
    const sessionId = draft.sessionId ?? rootSessionId;
    const source =
      draft.source ??
      (dialect === undefined ? undefined : currentLine > 0 ? { dialect: dialect.name, line: currentLine } : { dialect: dialect.name });
    const v = MODEL_VERSION;
    const n = seq++;
    let event: Record<string, unknown>;
    if (sessionId !== undefined && source !== undefined) event = { v, seq: n, ...draft, sessionId, source };
    else if (sessionId !== undefined) event = { v, seq: n, ...draft, sessionId };
    else if (source !== undefined) event = { v, seq: n, ...draft, source };
    else event = { v, seq: n, ...draft };
    if (includeRaw && draft.raw === undefined && currentRaw !== undefined) event.raw = rawToAttach(currentRaw);
    onEvent(event as unknown as AgentEvent);
  }

  function runStages(draft: AgentEventDraft, index: number): void {
    const stage = stages[index];
    if (stage === undefined) stamp(draft);
    else stage.push(draft, (next) => runStages(next, index + 1));
  }

  function emitDrafts(drafts: readonly AgentEventDraft[]): void {
    for (const draft of drafts) {
      if (draft.type === "unknown") unknown++;
      if (
        draft.type === "session.completed" &&
        (draft.sessionId === undefined || rootSessionId === undefined || draft.sessionId === rootSessionId)
      )
        sessionEnded = true;
      if (stages.length === 0) stamp(draft);
      else runStages(draft, 0);
    }
  }

  function decode(record: InputRecord): void {
    currentLine = record.line;
    if (record.kind === "text" && record.dropped !== undefined) {
      currentRaw = undefined;
      emitDrafts([droppedNotice(record)]);
      return;
    }
    if (record.kind === "text" && !(dialect?.readsText ?? false)) {
      if (record.invalid === true) return; // rejected JSON: already reported and counted

      currentRaw = undefined;
      emitDrafts([{ type: "text", text: record.text, position: sawJson ? "interleaved" : "preamble" }]);
      return;
    }
    if (record.kind === "json") sawJson = true;
    noteOpening(record);
    currentRaw = record.kind === "json" ? record.value : undefined;
    emitDrafts((decoder as DialectDecoder).decode(record, context));
  }

  function noteOpening(record: InputRecord): void {
    const opening = dialect?.startsSession?.(record);
    if (opening === undefined) return;
    sessionOpened = true;
    sessionKey = opening.sessionId ?? sessionKey;
  }

  /**
   * The dialect of a new session that `record` opens, if it opens one: a second opening record of
   * the current dialect for another session (or after the session ended), or, when detecting, a
   * record another dialect claims and the current one does not (its opening record, when that
   * dialect says how its streams open).
   */
  function nextSession(record: InputRecord): { readonly dialect: Dialect; readonly opening: boolean } | undefined {
    if (record.kind !== "json" || dialect === undefined) return undefined;
    const opening = dialect.startsSession?.(record);
    if (opening !== undefined) {
      // The same id continues the session (Claude repeats its init per stream-json input turn) until it has ended.
      const sameSession = opening.sessionId !== undefined && opening.sessionId === sessionKey;
      if (!sessionOpened || (sameSession && !sessionEnded)) return undefined;
      // Detected afresh: Cursor's and Qwen's init records look like Claude's.
      return { dialect: detecting ? (detectDialect(record) ?? dialect) : dialect, opening: true };
    }
    if (!detecting || dialect.detect(record)) return undefined;
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
  function decodeOrSwitch(record: JsonRecord, candidate: Dialect): void {
    currentLine = record.line;
    const problems: DecodeProblem[] = [];
    const probe: DecodeContext = { line: record.line, report: (problem) => problems.push(problem) };
    const drafts = (decoder as DialectDecoder).decode(record, probe);
    if (drafts.length > 0 && drafts.every((draft) => draft.type === "unknown")) {
      startSession(candidate, record);
      decode(record);
      return;
    }
    sawJson = true;
    noteOpening(record);
    currentRaw = record.value;
    for (const problem of problems) context.report(problem);
    emitDrafts(drafts);
  }

  function startSession(next: Dialect, record: InputRecord): void {
    const statsBefore = countStats();
    // The boundary record is already counted by the framer: it belongs to the new session.
    const before: RecordStats = { ...statsBefore, total: statsBefore.total - 1, events: statsBefore.events - 1 };
    currentRaw = undefined;
    emitDrafts((decoder as DialectDecoder).end(context));
    endStages();
    const previousDialect = (dialect as Dialect).name;
    const healthBefore = countHealth();
    dialect = next;
    decoder = next.createDecoder();
    rootSessionId = undefined;
    sessionOpened = false;
    sessionEnded = false;
    sessionKey = undefined;
    sawJson = false;
    const session = sessions++; // not inside the optional call below: it would not run without a callback
    const redactionsBefore = { ...redactionStage?.counts };
    callbacks.onSessionBoundary?.({
      session,
      dialect: next.name,
      previousDialect,
      line: record.line,
      statsBefore: before,
      healthBefore,
      redactionsBefore,
    });
  }

  function endStages(): void {
    const finish = (index: number): void => {
      const stage = stages[index];
      if (stage === undefined) return;
      stage.end((draft) => runStages(draft, index + 1));
      finish(index + 1);
    };
    finish(0);
  }

  function settle(chosen: Dialect): void {
    dialect = chosen;
    decoder = chosen.createDecoder();
    for (const record of held.splice(0)) decode(record);
  }

  function countHealth(): HealthStats {
    const repairs = repairStage?.stats ?? { repairs: 0, largeDeltas: 0, protocolViolations: 0 };
    return { ...repairs, parseErrors: framer.stats.invalid, unknownRecords: unknown };
  }

  function countStats(): RecordStats {
    const f = framer.stats;
    return {
      total: f.lines,
      events: f.json - unknown,
      blank: f.blank,
      text: f.text,
      invalid: f.invalid,
      tooLong: f.tooLong,
      tooLongBytes: f.tooLongBytes,
      unknown,
    };
  }

  // Redaction keeps every skipped string that could hold a secret, so its counts stay exact.
  const skim =
    options.fields === "summary" ? { ...SUMMARY_SKIM, ...(redactionStage === undefined ? {} : { keep: mayHoldSecretRaw }) } : undefined;
  const framer = createNdjsonParser(
    {
      onRecord(record) {
        if (decoder !== undefined) {
          const next = nextSession(record);
          if (next !== undefined && !next.opening && record.kind === "json") return decodeOrSwitch(record, next.dialect);
          if (next !== undefined) startSession(next.dialect, record);
          return decode(record);
        }
        held.push(record);
        const found = detectDialect(record);
        if (found !== undefined) settle(found);
        else if (held.length >= detectLimit) settle(getDialect("json"));
      },
      onIssue: reportIssue,
    },
    skim === undefined ? options : { ...options, skim },
  );

  return {
    feed(chunk) {
      framer.feed(chunk);
    },
    inject(draft) {
      const line = currentLine;
      const raw = currentRaw;
      currentLine = 0;
      currentRaw = undefined;
      // Past repair (it is not the agent's stream) but through redaction and the caller's stages: a stderr line can hold a secret too.
      if (stages.length === 0) stamp(draft);
      else runStages(draft, repairStage === undefined ? 0 : 1);
      currentLine = line;
      currentRaw = raw;
    },
    end() {
      framer.end();
      if (decoder === undefined) {
        if (held.some((r) => r.kind === "json")) {
          reportIssue({
            code: "dialect-mismatch",
            severity: "info",
            message: "no agent dialect recognised; records kept as opaque events (use --from to choose one)",
            line: 0,
          });
        }
        settle(getDialect("json"));
      }
      currentLine = 0;
      currentRaw = undefined;
      emitDrafts((decoder as DialectDecoder).end(context));
      const f = framer.stats;
      const content = f.lines - f.blank;
      if (f.invalid > 0 && f.invalid * 2 > content) {
        reportIssue({
          code: "parse-error-rate",
          severity: "warning",
          message: `${f.invalid} of ${content} records failed to parse: is this the right input (or --framing)?`,
          line: 0,
        });
      }
      endStages();
    },
    get dialect() {
      return dialect?.name;
    },
    get stats(): RecordStats {
      return countStats();
    },
    get sessions() {
      return sessions;
    },
    get framing() {
      return framer.stats;
    },
    get redactions(): RedactionCounts {
      return { ...redactionStage?.counts };
    },
    get health(): HealthStats {
      return countHealth();
    },
  };
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
