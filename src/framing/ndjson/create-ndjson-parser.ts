/**
 * Bytes in, records out, nothing lost: the synchronous framing core.
 *
 * Frames on bytes (0x0A never occurs inside a UTF-8 sequence), strips one trailing CR, decodes each
 * line on its own (so a character split across chunks survives and ASCII lines stay cheap), then
 * parses. Three framings: NDJSON, RFC 7464 json-seq (0x1E), and pretty-printed objects found by
 * brace depth (the Cline CLI prints them); `auto` picks one from the first bytes.
 * The behaviour on each hazard is specified by ../shared/corpus/ndjson-hazards/MANIFEST.md and
 * where we differ, docs/architecture.md says why.
 *
 * No I/O and no Node-only imports: this runs in browsers too.
 */
import type { Issue, IssueCode, IssueSeverity } from "../../errors.ts";
import { AgentStreamError } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import { findDuplicateKey, inspectValue, removeForbiddenKeys } from "./_inspect-value.ts";
import { restoreUnsafeIntegers } from "./_lossless-integers.ts";
import { Skimmer, withoutRanges, type SkimOptions } from "./_skim.ts";
import { withPlaceholders } from "./_placeholders.ts";
import type { StringHolder } from "../held-strings.ts";

export type { SkimOptions };

/** How records are delimited. */
/** How records are delimited. `document`: the whole input is one JSON text (a saved session file). */
export type Framing = "auto" | "ndjson" | "json-seq" | "pretty" | "document";

/** A JSON object read from the input. */
export interface JsonRecord {
  readonly kind: "json";
  readonly value: JsonObject;
  /** 1-based line where the record starts. */
  readonly line: number;
  /** Byte offset where the record starts. */
  readonly offset: number;
  /** Length in bytes, without the line terminator. */
  readonly length: number;
  /** True when invalid UTF-8 was replaced by U+FFFD while decoding. */
  readonly lossy?: boolean;
  /** The decoded line as it was written (for text dialects that read JSON-looking lines as text); set by the framer. */
  readonly text?: string;
}

/** A line of the input that is not JSON: a banner, a log line, an agent's plain-text output. */
export interface TextRecord {
  readonly kind: "text";
  readonly text: string;
  readonly line: number;
  readonly offset: number;
  readonly length: number;
  readonly lossy?: boolean;
  /**
   * True for a line that looked like JSON and was rejected (reported as an issue). JSON dialects
   * skip these; text dialects (Aider, Harmony) read them as the text they are.
   */
  readonly invalid?: boolean;
  /**
   * Set on the empty stand-in for a line that was discarded whole (`line-too-long`): `line`,
   * `offset` and `length` say where it was and how many bytes it had, so the loss can be put in
   * the event stream in order.
   */
  readonly dropped?: IssueCode;
}

/** What the framer hands out: JSON objects and the text lines between them. */
export type InputRecord = JsonRecord | TextRecord;

/** Counts of what the framer saw, for `summary` and health reports. */
export interface FramingStats {
  /** Lines (or json-seq texts) seen, blank ones included. */
  lines: number;
  /** JSON objects handed out. */
  json: number;
  /** Text lines handed out. */
  text: number;
  blank: number;
  /** Lines that looked like JSON and did not parse, or were rejected (depth, not an object, forbidden keys with `forbiddenKeys: "reject"`). */
  invalid: number;
  tooLong: number;
  /** Bytes in the lines counted by `tooLong`. */
  tooLongBytes: number;
  bytes: number;
}

export interface NdjsonCallbacks {
  /** Called once per record, synchronously, as soon as its line is complete. */
  onRecord(record: InputRecord): void;
  /** Called for every input problem. Never thrown. */
  onIssue?(issue: Issue): void;
}

export interface NdjsonOptions {
  /** @defaultValue "auto" */
  framing?: Framing;
  /** Longest line kept, in bytes; a longer one is discarded while it streams and reported once. @defaultValue 16 MiB */
  maxLineBytes?: number;
  /** Deepest nesting accepted. @defaultValue 128 */
  maxDepth?: number;
  /**
   * What to do with an object that repeats a key. `keep-last` keeps the record as JSON.parse reads it
   * (last value wins) and reports it: Codex 0.155 writes `id` twice in web_search items, and dropping
   * them would lose real events. `reject` drops the record, as strict I-JSON readers do.
   * @defaultValue "keep-last"
   */
  duplicateKeys?: "keep-last" | "reject";
  /**
   * What to do with `__proto__` (or `constructor` holding a `prototype`) anywhere in a record.
   * `remove` deletes those keys and keeps the record, so one such key cannot hide the rest of it
   * (a sibling tool call, say); `reject` drops the whole record, as the hazard corpus expects.
   * Both report `forbidden-key`.
   * @defaultValue "remove"
   */
  forbiddenKeys?: "remove" | "reject";
  /** File name put on issues. */
  file?: string;
}

/**
 * The framer's options: `NdjsonOptions` and what only the event reader hands in (selective reading, and the held
 * strings of a writer of our own format): not part of the package's API, so a caller's records are always read whole.
 */
export interface FramerOptions extends NdjsonOptions {
  /**
   * Selective reading: long string values under these keys are skipped by scanning bytes (checked,
   * not decoded) and read as `""`; a line that does not skim cleanly is read in full. Set by the
   * event reader's `fields: "summary"`, a view's `toolOutputEnds` and a writer's held strings.
   */
  skim?: SkimOptions;
  /**
   * With `skim`: the skipped strings whose JSON text is what `JSON.stringify` writes are not read as
   * `""` but held as bytes there, the record getting a placeholder in their place; the others are read
   * in full. For writers that splice the bytes back (framing/held-strings.ts).
   */
  holdStrings?: StringHolder;
}

/** Lines shorter than this are parsed whole unless `skim.minLineBytes` says otherwise. */
const SKIM_MIN_LINE_BYTES = 64 * 1024;

/** A push parser: feed it any slices of the input, then call `end`. */
export interface NdjsonParser {
  /** Any slice of bytes or text; each complete record is handed out before `feed` returns. */
  feed(chunk: Uint8Array | string): void;
  /** Flushes the final line (which may lack its newline) and reports a torn tail. */
  end(): void;
  /** What has been seen so far. */
  readonly stats: FramingStats;
  /** The framing in use (`auto` until the first bytes decide it). */
  readonly framing: Framing;
}

const LF = 0x0a;
const CR = 0x0d;
const RS = 0x1e;
const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_DEPTH = 128;

/** The hint on `line-too-long`; the CLI swaps it for its own flag. */
export const MAX_LINE_HINT = "raise maxLineBytes to keep it";
/** The hint on `depth-exceeded`; the CLI swaps it for its own flag. */
export const MAX_DEPTH_HINT = "raise maxDepth to keep it";
const BINARY_SAMPLE_BYTES = 512;

const encoder = new TextEncoder();
const lenientDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
const strictDecoder = new TextDecoder("utf-8", { ignoreBOM: true, fatal: true });

/**
 * Creates a push parser for NDJSON, json-seq or pretty-printed JSON.
 * @example
 * const parser = createNdjsonParser({ onRecord: (r) => console.log(r), onIssue: (i) => console.warn(i) });
 * parser.feed('{"type":"init"}\n'); parser.end();
 */
export function createNdjsonParser(callbacks: NdjsonCallbacks, options: NdjsonOptions = {}): NdjsonParser {
  return createFramingParser(callbacks, options);
}

/** `createNdjsonParser` with what only the event reader hands in (`FramerOptions`). Not part of the package's API. */
export function createFramingParser(callbacks: NdjsonCallbacks, options: FramerOptions): NdjsonParser {
  if (typeof callbacks?.onRecord !== "function") {
    throw new AgentStreamError(
      "invalid-option",
      "createNdjsonParser needs callbacks with an onRecord function: createNdjsonParser({ onRecord: (record) => ... })",
    );
  }
  const framing: Framing = options.framing ?? "auto";
  if (!["auto", "ndjson", "json-seq", "pretty", "document"].includes(framing)) {
    throw new AgentStreamError("invalid-option", `unknown framing "${framing}": use auto, ndjson, json-seq, pretty or document`);
  }
  const parser = new NdjsonFramer(callbacks, options, framing);
  return {
    feed(chunk: Uint8Array | string): void {
      if (typeof chunk === "string") parser.feedBytes(encoder.encode(chunk));
      else if (chunk instanceof Uint8Array) parser.feedBytes(chunk);
      else throw new AgentStreamError("invalid-option", `feed() takes a string or a Uint8Array, not ${typeof chunk}`);
    },
    end(): void {
      parser.end();
    },
    stats: parser.stats,
    get framing() {
      return parser.framing;
    },
  };
}

/** The framer's state (the unfinished line, line numbers, the pretty and json-seq scanners) and its steps. */
class NdjsonFramer {
  readonly maxLineBytes: number;
  readonly maxDepth: number;
  readonly rejectDuplicates: boolean;
  readonly rejectForbidden: boolean;
  readonly skim: SkimOptions | undefined;
  /** This parser's skimmer (its scan's state), when `skim` is set. */
  readonly skimmer: Skimmer | undefined;
  readonly holdStrings: FramerOptions["holdStrings"];
  /** The chunk being fed: a line inside it is the caller's memory (which it may reuse), any other line is ours. */
  chunk: Uint8Array | undefined = undefined;
  framing: Framing;
  readonly onRecord: (record: InputRecord) => void;
  readonly onIssue: (issue: Issue) => void;
  readonly file: string | undefined;
  readonly stats: FramingStats = { lines: 0, json: 0, text: 0, blank: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, bytes: 0 };
  // The unfinished line: a list of chunk slices, joined once when the line ends (no quadratic re-scan).
  pending: Uint8Array[] = [];
  pendingLength = 0;
  discarding = false; // inside a line that passed maxLineBytes
  // The line being discarded: where it started and how many bytes it has had so far.
  discardLine = 0;
  discardOffset = 0;
  discardBytes = 0;
  line = 0; // number of the line being read, 1-based once it starts
  lineStart = 0; // byte offset where the current line starts
  consumed = 0; // bytes fed so far
  fatal = false;
  sniffed = false; // the first bytes have been checked for gzip / UTF-16
  sawStructured = false;
  // Pretty framing: brace-depth scanner state, carried across chunks.
  depth = 0;
  inString = false;
  escaped = false;
  recordLine = 0;
  recordOffset = 0;
  lineHasContent = false;
  afterRecord = false;
  // Pretty framing of a JSON array of events (`[ {..}, {..} ]`, as AG-UI's .NET goldens are saved):
  // the array's elements are the records; `[`, `,` and `]` between them are not text.
  arrayState: "unknown" | "open" | "closed" | "none" = "unknown";
  // json-seq: RS starts a text; LF inside a text is allowed (pretty texts), so only RS frames.
  seqLine = 1; // line number at the current position (counts LFs)
  seqTextLine = 0;
  seqTextOffset = 0;
  seqOpen = false;
  sniffBuffer: Uint8Array | undefined = undefined;
  leadingBom = false;

  constructor(callbacks: NdjsonCallbacks, options: FramerOptions, framing: Framing) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.rejectDuplicates = options.duplicateKeys === "reject";
    this.rejectForbidden = options.forbiddenKeys === "reject";
    this.skim = options.skim;
    this.skimmer = options.skim === undefined ? undefined : new Skimmer(options.skim);
    this.holdStrings = options.holdStrings;
    this.framing = framing;
    this.onRecord = callbacks.onRecord;
    this.onIssue = callbacks.onIssue ?? (() => {});
    this.file = options.file;
  }

  private issue(code: IssueCode, severity: IssueSeverity, message: string, at: number, offset: number, length: number): void {
    const value: Issue =
      this.file === undefined
        ? { code, severity, message, line: at, offset, length }
        : { code, severity, message, line: at, offset, length, file: this.file };
    this.onIssue(value);
  }

  private decode(bytes: Uint8Array, at: number, offset: number): { text: string; lossy: boolean } {
    const text = lenientDecoder.decode(bytes);
    if (!text.includes("\uFFFD")) return { text, lossy: false };
    try {
      strictDecoder.decode(bytes); // U+FFFD can be genuine text; only a strict decode failure is lossy
      return { text, lossy: false };
    } catch {
      this.issue(
        "invalid-utf8",
        "warning",
        "invalid UTF-8 replaced by U+FFFD; the raw bytes are at the given offset",
        at,
        offset,
        bytes.length,
      );
      return { text, lossy: true };
    }
  }

  /** Handles one complete NDJSON line (terminator removed). `final` is true for a last line with no LF. */
  private handleLine(bytes: Uint8Array, at: number, offset: number, final: boolean): void {
    this.stats.lines++;
    let start = 0;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CR) end--;
    if (end - start >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      start = 3;
      this.issue(
        "bom-stripped",
        "warning",
        "byte order mark (U+FEFF) removed; JSON Lines writers must not add one (files joined with cat?)",
        at,
        offset,
        3,
      );
    }
    if (start < end && bytes[start] === RS) {
      start++;
      this.issue(
        "rs-stripped",
        "warning",
        "record separator (0x1E) at the start of an NDJSON line removed (jq --seq output?)",
        at,
        offset,
        1,
      );
    }
    let first = start;
    while (first < end && isJsonSpace(bytes[first] as number)) first++;
    if (first === end) {
      this.stats.blank++;
      this.issue("blank-line", "info", "blank line skipped", at, offset, bytes.length);
      return;
    }
    const view = start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end);
    if (
      this.skim !== undefined &&
      end - start >= (this.skim.minLineBytes ?? SKIM_MIN_LINE_BYTES) &&
      this.handleSkimmed(view, bytes[first] as number, at, offset, end, final)
    )
      return;
    const { text, lossy } = this.decode(view, at, offset);
    this.handleText(text, bytes[first] as number, at, offset, end, lossy, final);
  }

  /**
   * Reads a long line without its skippable strings; false when it does not skim cleanly (nothing
   * to skip, something unusual, or the rest is not valid JSON): the caller then reads it in full,
   * so every issue is reported as without skimming.
   */
  private handleSkimmed(view: Uint8Array, lead: number, at: number, offset: number, length: number, final: boolean): boolean {
    if (lead !== 0x7b) return false;
    const ranges = (this.skimmer as Skimmer).skim(view);
    if (ranges.length === 0) return false;
    const raw = this.holdStrings;
    const reduced =
      raw === undefined ? withoutRanges(view, ranges) : withPlaceholders(view, ranges, raw, view.buffer === this.chunk?.buffer);
    if (reduced === undefined) return false;
    const text = lenientDecoder.decode(reduced);
    // Invalid UTF-8 outside the skipped strings: the full read reports it, with the line's bytes.
    if (text.includes("\uFFFD")) return false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return false;
    }
    this.handleText(text, lead, at, offset, length, false, final, { value });
    return true;
  }

  /** Parses one framed text whose first non-space byte is `lead`. */
  private handleText(
    text: string,
    lead: number,
    at: number,
    offset: number,
    length: number,
    lossy: boolean,
    final: boolean,
    parsed?: { readonly value: unknown },
  ): void {
    /** Reports a rejected record and hands its text on, marked invalid (text dialects read it; JSON dialects skip it). */
    const reject = (code: IssueCode, message: string): void => {
      this.stats.invalid++;
      this.issue(code, "warning", message, at, offset, length);
      const record: TextRecord = lossy
        ? { kind: "text", text, line: at, offset, length, lossy, invalid: true }
        : { kind: "text", text, line: at, offset, length, invalid: true };
      this.onRecord(record);
    };
    const looksLikeJson = lead === 0x7b || lead === 0x5b; // { [
    const mayBeScalar = lead === 0x22 || lead === 0x2d || (lead >= 0x30 && lead <= 0x39) || lead === 0x74 || lead === 0x66 || lead === 0x6e;
    if (!looksLikeJson && !mayBeScalar) return this.emitText(text, at, offset, length, lossy, final);
    let value: unknown = parsed?.value;
    try {
      if (parsed === undefined) value = JSON.parse(text);
    } catch (error) {
      if (!looksLikeJson && !(final && isTruncatedScalar(text))) return this.emitText(text, at, offset, length, lossy, final);
      if (text.includes("\r") && text.split("\r").every((part) => part.trim() === "" || isJson(part))) {
        reject(
          "cr-only-line-endings",
          "lines end with a lone CR (old Mac line endings); NDJSON needs LF or CRLF: convert with `tr '\\r' '\\n'`",
        );
      } else if (final) {
        reject("truncated-tail", "the input ends inside a record (writer killed mid-line?); the partial record was skipped");
      } else {
        const reason = error instanceof Error ? error.message : String(error);
        const hint = text.trim() === "{" || text.trim() === "[" ? " (pretty-printed JSON? use --framing pretty, or jq -c)" : "";
        reject("invalid-json", `not valid JSON: ${reason}${hint}`);
      }
      return;
    }
    const inspection = inspectValue(value, this.maxDepth);
    if (inspection.depth > this.maxDepth) {
      reject("depth-exceeded", `nesting deeper than ${this.maxDepth} levels; record skipped (${MAX_DEPTH_HINT})`);
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      if (final && typeof value === "number") {
        reject(
          "possibly-truncated",
          "the input ends with a bare number and no newline; it may have been cut (RFC 7464 §2.4), so it was dropped",
        );
        return;
      }
      reject(
        "not-object",
        `a JSON ${Array.isArray(value) ? "array" : value === null ? "null" : typeof value} where an event object was expected`,
      );
      return;
    }
    if (inspection.forbiddenKey !== undefined && this.rejectForbidden) {
      reject("forbidden-key", `key "${inspection.forbiddenKey}" could pollute object prototypes; record skipped`);
      return;
    }
    if (inspection.forbiddenKey !== undefined) {
      // Dropping the whole record would let a model hide a sibling tool call behind one such key:
      // only the keys go, and the record is read as usual.
      const removed = removeForbiddenKeys(value);
      this.issue(
        "forbidden-key",
        "warning",
        `${removed.map((path) => `"${path}"`).join(", ")} could pollute object prototypes: removed, the rest of the record is kept`,
        at,
        offset,
        length,
      );
    }
    const duplicate = findDuplicateKey(text, inspection.keyCount);
    if (duplicate !== undefined) {
      if (this.rejectDuplicates) {
        reject("duplicate-key", `key "${duplicate}" appears twice in one object; record skipped`);
        return;
      }
      this.issue("duplicate-key", "warning", `key "${duplicate}" appears twice in one object; the last value is kept`, at, offset, length);
    }
    // 1.0e+28 is an integral double too, but it was written as a float: only a long digit run lost digits.
    // The digits are put back as LosslessIntegers, which every writer writes out as they came in.
    if (inspection.unsafeIntegers > 0 && /\d{16}/.test(text) && restoreUnsafeIntegers(text, value as JsonObject) > 0) {
      this.issue(
        "unsafe-integer",
        "info",
        "an integer beyond ±(2^53−1) is kept as its source digits (a LosslessInteger, not a number)",
        at,
        offset,
        length,
      );
    }
    if (inspection.overflows > 0) {
      this.issue("number-overflow", "warning", "a number too large for a double became Infinity", at, offset, length);
    }
    if (final) this.issue("no-final-newline", "info", "the last line has no newline", at, offset, length);
    this.sawStructured = true;
    this.stats.json++;
    const record: JsonRecord = lossy
      ? { kind: "json", value: value as JsonObject, line: at, offset, length, text, lossy }
      : { kind: "json", value: value as JsonObject, line: at, offset, length, text };
    this.onRecord(record);
  }

  private emitText(text: string, at: number, offset: number, length: number, lossy: boolean, final: boolean): void {
    this.stats.text++;
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text;
    this.issue(
      "non-json-line",
      "info",
      `kept as text: ${this.sawStructured ? "a non-JSON line in the stream" : "text before the first record"}`,
      at,
      offset,
      length,
    );
    if (final) this.issue("no-final-newline", "info", "the last line has no newline", at, offset, length);
    const record: TextRecord = lossy
      ? { kind: "text", text: trimmed, line: at, offset, length, lossy }
      : { kind: "text", text: trimmed, line: at, offset, length };
    this.onRecord(record);
  }

  private join(parts: Uint8Array[], total: number, into?: Uint8Array): Uint8Array {
    if (parts.length === 1) return parts[0] as Uint8Array;
    const joined = into ?? new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    return joined;
  }

  /**
   * Joins an NDJSON line. A long one that will be skimmed (and whose strings are not held) goes where the
   * WebAssembly scan reads, so the scan needs no copy of it. Only here: a line joined there is read (skimmed,
   * decoded) before the next one is, and no bytes of it are handed out.
   */
  private joinLine(parts: Uint8Array[], total: number): Uint8Array {
    const scanned =
      parts.length > 1 &&
      this.skim !== undefined &&
      this.holdStrings === undefined &&
      total >= (this.skim.minLineBytes ?? SKIM_MIN_LINE_BYTES);
    return this.join(parts, total, scanned ? this.skimmer?.lineMemory(total) : undefined);
  }

  /** Starts discarding a line that passed the limit: reported at once, while it still streams. */
  private tooLong(at: number, offset: number, bytesSoFar: number): void {
    this.stats.tooLong++;
    this.stats.lines++;
    this.discarding = true;
    this.discardLine = at;
    this.discardOffset = offset;
    this.discardBytes = bytesSoFar;
    this.issue(
      "line-too-long",
      "warning",
      `line longer than ${this.maxLineBytes} bytes discarded while streaming (${MAX_LINE_HINT})`,
      at,
      offset,
      this.maxLineBytes,
    );
  }

  /** The discarded line ended: hands out its stand-in record, with its full length, so the loss reaches the event stream. */
  private finishDiscard(): void {
    this.discarding = false;
    this.stats.tooLongBytes += this.discardBytes;
    const record: TextRecord = {
      kind: "text",
      text: "",
      line: this.discardLine,
      offset: this.discardOffset,
      length: this.discardBytes,
      invalid: true,
      dropped: "line-too-long",
    };
    this.onRecord(record);
  }

  /** Adds a slice of the current line, switching to discard mode past the limit. */
  private append(slice: Uint8Array): void {
    if (this.discarding) {
      this.discardBytes += slice.length;
      return;
    }
    if (this.pendingLength + slice.length > this.maxLineBytes) {
      const bytesSoFar = this.pendingLength + slice.length;
      this.pending = [];
      this.pendingLength = 0;
      this.tooLong(this.line + 1, this.lineStart, bytesSoFar);
      return;
    }
    if (slice.length > 0) {
      // Copy when keeping a view into a caller's buffer would pin it (Node reuses pooled buffers).
      this.pending.push(slice);
      this.pendingLength += slice.length;
    }
  }

  private feedNdjson(chunk: Uint8Array): void {
    let from = 0;
    for (let nl = chunk.indexOf(LF, from); nl !== -1; nl = chunk.indexOf(LF, from)) {
      const at = ++this.line;
      if (this.discarding) {
        this.discardBytes += nl - from;
        this.finishDiscard();
      } else if (this.pendingLength === 0) {
        if (nl - from > this.maxLineBytes) {
          this.tooLong(at, this.lineStart, nl - from);
          this.finishDiscard();
        } else this.handleLine(chunk.subarray(from, nl), at, this.lineStart, false);
      } else {
        this.append(chunk.subarray(from, nl));
        if (this.discarding) this.finishDiscard();
        else this.handleLine(this.joinLine(this.pending, this.pendingLength), at, this.lineStart, false);
      }
      this.pending = [];
      this.pendingLength = 0;
      this.lineStart = this.consumed + nl + 1;
      from = nl + 1;
    }
    if (from < chunk.length) this.append(from === 0 ? chunk.slice() : chunk.slice(from));
  }

  private flushSeq(final: boolean): void {
    if (!this.seqOpen) return;
    this.seqOpen = false;
    const bytes = this.discarding ? undefined : this.join(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    if (bytes === undefined) {
      this.finishDiscard();
      return;
    }
    let first = 0;
    while (first < bytes.length && isJsonSpace(bytes[first] as number)) first++;
    if (first === bytes.length) return; // consecutive RS: ignored (RFC 7464 §2.1)
    this.stats.lines++;
    const { text, lossy } = this.decode(bytes, this.seqTextLine, this.seqTextOffset);
    const lead = bytes[first] as number;
    // RFC 7464 §2.4: a text must end with LF; a bare scalar without it may be truncated.
    const endsWithLf = bytes[bytes.length - 1] === LF;
    this.handleText(
      text,
      lead,
      this.seqTextLine,
      this.seqTextOffset,
      bytes.length,
      lossy,
      final && !endsWithLf && lead !== 0x7b && lead !== 0x5b,
    );
  }

  private feedSeq(chunk: Uint8Array): void {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === RS) {
        if (i > from) this.append(chunk.subarray(from, i));
        this.flushSeq(false);
        this.seqOpen = true;
        this.seqTextLine = this.seqLine;
        this.seqTextOffset = this.consumed + i + 1;
        from = i + 1;
      } else if (byte === LF) {
        this.seqLine++;
      }
    }
    if (from < chunk.length) {
      if (!this.seqOpen) {
        // Bytes before the first RS: a json-seq parser skips them (§2.3); report them.
        this.seqOpen = true;
        this.seqTextLine = this.seqLine;
        this.seqTextOffset = this.consumed + from;
      }
      this.append(chunk.slice(from));
    }
    this.line = this.seqLine;
  }

  /**
   * Pretty framing, at depth 0: true when `byte` is framing, not content: a BOM at the start of the
   * input (RFC 8259 §8.1 lets a parser ignore it), the `[` that opens the input as an array of
   * records, or a `,` or `]` of that array.
   */
  private prettyArrayByte(byte: number, at: number): boolean {
    if (at < 3 && this.leadingBom) {
      if (at === 0) this.issue("bom-stripped", "info", "byte order mark (U+FEFF) at the start of a JSON document ignored", 1, 0, 3);
      return true;
    }
    if (this.arrayState === "unknown") {
      this.arrayState = byte === 0x5b ? "open" : "none";
      return this.arrayState === "open";
    }
    if (this.arrayState !== "open") return false;
    if (byte === 0x5d) this.arrayState = "closed";
    return byte === 0x2c || byte === 0x5d;
  }

  /** True when the input is a JSON array of records: lines holding only its punctuation are not text. */
  private inArrayFraming(): boolean {
    return this.arrayState === "open" || this.arrayState === "closed";
  }

  // Pretty: an object starts at a `{` or `[` that opens a line and ends where its depth returns
  // to zero; text between objects is kept line by line. Strings and escapes are tracked so
  // braces inside strings do not count.
  private feedPretty(chunk: Uint8Array): void {
    let from = 0; // start of the not-yet-appended slice
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (this.depth === 0) {
        if (byte === LF) {
          this.line++;
          if (i > from) this.append(chunk.subarray(from, i));
          const bytes = this.join(this.pending, this.pendingLength);
          this.pending = [];
          this.pendingLength = 0;
          if (this.discarding) this.finishDiscard();
          // The LF that ends a record's last line is not a blank line of its own.
          else if (!(this.afterRecord && !this.lineHasContent && isBlank(bytes)) && !(this.inArrayFraming() && !this.lineHasContent))
            this.handleLine(bytes, this.line, this.lineStart, false);
          this.lineHasContent = false;
          this.afterRecord = false;
          this.lineStart = this.consumed + i + 1;
          from = i + 1;
          continue;
        }
        if (this.arrayState !== "none" && !this.lineHasContent && !isJsonSpace(byte) && this.prettyArrayByte(byte, this.consumed + i)) {
          // Framing is not part of the next record: drop it (and the blanks before it) from the line.
          this.pending = [];
          this.pendingLength = 0;
          from = i + 1;
          this.lineStart = this.consumed + i + 1;
          continue;
        }
        if (!this.lineHasContent && !isJsonSpace(byte)) {
          this.lineHasContent = true;
          if (byte === 0x7b || byte === 0x5b) {
            this.depth = 1;
            this.inString = false;
            this.escaped = false;
            this.recordLine = this.line + 1;
            this.recordOffset = this.lineStart;
          }
        }
        continue;
      }
      if (byte === LF) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === 0x5c) this.escaped = true;
        else if (byte === 0x22) this.inString = false;
        continue;
      }
      if (byte === 0x22) this.inString = true;
      else if (byte === 0x7b || byte === 0x5b) this.depth++;
      else if (byte === 0x7d || byte === 0x5d) {
        this.depth--;
        if (this.depth === 0) {
          this.append(chunk.subarray(from, i + 1));
          from = i + 1;
          const bytes = this.join(this.pending, this.pendingLength);
          this.pending = [];
          this.pendingLength = 0;
          if (this.discarding) this.finishDiscard();
          else {
            this.stats.lines++;
            let start = 0;
            if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
            const body = start === 0 ? bytes : bytes.subarray(start);
            const { text, lossy } = this.decode(body, this.recordLine, this.recordOffset);
            let lead = 0;
            for (const b of body)
              if (!isJsonSpace(b)) {
                lead = b;
                break;
              }
            this.handleText(text, lead, this.recordLine, this.recordOffset, bytes.length, lossy, false);
          }
          // The rest of this physical line (usually just the LF) is not part of the record.
          this.lineHasContent = false;
          this.afterRecord = true;
          this.lineStart = this.consumed + i + 1;
        }
      }
    }
    if (from < chunk.length) this.append(chunk.slice(from));
  }

  /** Looks at the first bytes: rejects gzip and UTF-16, picks a framing for `auto`. */
  private sniff(chunk: Uint8Array): boolean {
    const b0 = chunk[0];
    const b1 = chunk[1];
    if (chunk.length < 3) return false; // too few bytes to tell gzip, UTF-16 or a BOM apart: wait
    if (b0 === 0x1f && b1 === 0x8b) {
      this.fatal = true;
      this.issue("gzip", "fatal", "the input is gzip-compressed; decompress it first (gunzip -c file | agentstream ...)", 0, 0, 0);
      return false;
    }
    // A BOM, or a NUL in the first two bytes (ASCII in UTF-16 without a BOM): UTF-8 text has neither.
    if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff) || b0 === 0 || b1 === 0) {
      this.fatal = true;
      this.issue(
        "utf16",
        "fatal",
        "the input is UTF-16 (Windows PowerShell redirect?); NDJSON is UTF-8: convert with iconv -f UTF-16 -t UTF-8",
        0,
        0,
        0,
      );
      return false;
    }
    const verdict = binaryVerdict(chunk, false);
    if (verdict === "wait") return false;
    if (verdict === "binary") {
      this.rejectBinary();
      return false;
    }
    this.leadingBom = b0 === 0xef && b1 === 0xbb && chunk[2] === 0xbf;
    if (this.framing === "auto") {
      let i = this.leadingBom ? 3 : 0;
      while (i < chunk.length && isJsonSpace(chunk[i] as number)) i++;
      if (i === chunk.length) return false; // nothing decisive yet: wait for more
      if (chunk[i] === RS) this.framing = "json-seq";
      else if (chunk[i] === 0x7b || chunk[i] === 0x5b) {
        // `{` alone on the first line: a pretty-printed stream (Cline). Need the whole first line.
        const nl = chunk.indexOf(LF, i);
        if (nl === -1) {
          if (chunk.length < 4096) return false;
          this.framing = "ndjson";
          return true;
        }
        let j = i + 1;
        while (j < nl && isJsonSpace(chunk[j] as number)) j++;
        this.framing = j === nl ? "pretty" : "ndjson";
      } else this.framing = "ndjson";
    }
    return true;
  }

  private rejectBinary(): void {
    this.fatal = true;
    this.issue(
      "binary",
      "fatal",
      "the input is not text (NUL bytes or mostly invalid UTF-8 at the start); agent output is UTF-8 NDJSON",
      0,
      0,
      0,
    );
  }

  feedBytes(chunk: Uint8Array): void {
    if (this.fatal || chunk.length === 0) return;
    this.chunk = chunk;
    if (!this.sniffed) {
      const head = this.sniffBuffer === undefined ? chunk : this.join([this.sniffBuffer, chunk], this.sniffBuffer.length + chunk.length);
      if (!this.sniff(head)) {
        if (this.fatal) return;
        this.sniffBuffer = head.slice();
        return;
      }
      this.sniffed = true;
      this.sniffBuffer = undefined;
      chunk = head;
    }
    this.stats.bytes += chunk.length;
    if (this.framing === "json-seq") this.feedSeq(chunk);
    else if (this.framing === "pretty") this.feedPretty(chunk);
    else if (this.framing === "document") this.append(chunk.slice());
    else this.feedNdjson(chunk);
    this.consumed += chunk.length;
  }

  end(): void {
    if (!this.sniffed && this.sniffBuffer !== undefined && !this.fatal) {
      if (binaryVerdict(this.sniffBuffer, true) === "binary") {
        this.rejectBinary();
        return;
      }
      if (this.framing === "auto") this.framing = "ndjson";
      this.sniffed = true;
      const head = this.sniffBuffer;
      this.sniffBuffer = undefined;
      this.feedBytes(head);
    }
    if (this.fatal) return;
    if (this.framing === "document") {
      const bytes = this.join(this.pending, this.pendingLength);
      this.pending = [];
      this.pendingLength = 0;
      if (this.discarding) {
        this.finishDiscard();
        return;
      }
      if (isBlank(bytes)) {
        this.stats.lines++;
        this.stats.invalid++;
        this.issue("invalid-json", "warning", "the document is empty", 1, 0, bytes.length);
        return;
      }
      this.handleLine(bytes, 1, 0, false);
      return;
    }
    if (this.framing === "json-seq") {
      this.flushSeq(true);
      return;
    }
    if (this.framing === "pretty" && this.arrayState === "open" && this.depth === 0) {
      this.issue(
        "truncated-tail",
        "warning",
        "the input ends inside a JSON array (no closing `]`); the records before it were read",
        this.line,
        this.consumed,
        0,
      );
    }
    if (this.discarding) {
      this.finishDiscard();
      return;
    }
    if (this.pendingLength > 0) {
      const bytes = this.join(this.pending, this.pendingLength);
      this.pending = [];
      this.pendingLength = 0;
      if (this.framing === "pretty" && this.inArrayFraming() && !this.lineHasContent) return; // the array's closing `]` with no final newline
      if (this.framing === "pretty" && this.depth > 0) {
        this.stats.lines++;
        this.stats.invalid++;
        this.issue(
          "truncated-tail",
          "warning",
          "the input ends inside a record; the partial record was skipped",
          this.recordLine,
          this.recordOffset,
          bytes.length,
        );
        return;
      }
      this.handleLine(bytes, ++this.line, this.lineStart, true);
    }
  }
}

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === LF || byte === CR;
}

function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (!isJsonSpace(byte)) return false;
  return true;
}

/** A final line cut inside a scalar: a string, a number, or a prefix of true / false / null. */
function isTruncatedScalar(text: string): boolean {
  const t = text.trim();
  if (/^("|-?\d)/.test(t)) return true;
  return t.length > 0 && ["true", "false", "null"].some((literal) => literal.startsWith(t));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the input starts with bytes that cannot be agent output. Only an input whose first line
 * does not open like JSON is judged (a JSON line with a raw NUL is an `invalid-json` record, not a
 * binary file), on its first line up to 512 bytes, so the verdict never depends on how the input
 * was cut into chunks: `wait` until that line is complete (or `final`). Binary: a NUL (terminal text
 * never holds one; git and grep use the same test) or over a tenth of the bytes invalid UTF-8.
 */
function binaryVerdict(head: Uint8Array, final: boolean): "text" | "binary" | "wait" {
  let first = 0;
  while (first < head.length && isJsonSpace(head[first] as number)) first++;
  if (first === head.length) return final ? "text" : "wait";
  const opener = head[first];
  if (opener === 0x7b || opener === 0x5b || opener === RS || (opener === 0xef && head[first + 1] === 0xbb)) return "text";
  const newline = head.indexOf(LF, first);
  if (newline === -1 && head.length < BINARY_SAMPLE_BYTES && !final) return "wait";
  const end = Math.min(newline === -1 ? head.length : newline, BINARY_SAMPLE_BYTES);
  const sample = head.subarray(0, end);
  if (sample.includes(0)) return "binary";
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(sample, { stream: !final });
  let replaced = 0;
  for (const char of text) if (char === "\uFFFD") replaced++;
  return replaced * 10 > sample.length ? "binary" : "text";
}
