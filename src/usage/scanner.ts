/**
 * What the per-agent scanners share: a line handed over as bytes, a cheap test before parsing it, JSON parsed
 * without throwing, and the session facts every scanner keeps.
 */
import type { JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { RecordMap } from "./record-map.ts";
import type { SessionStore } from "./store.ts";
import type { FileScan, RequestKey, ScannerState, SessionFacts, UsageAgent } from "./types.ts";

/**
 * One agent's session logs as `usage` and `sessions` read them: where they are, how a file is told to be one, and
 * the scanner that reads it. Each scanner file declares its source; sources.ts lists them (docs/usage.md).
 */
export interface UsageSource {
  readonly agent: UsageAgent;
  /** How `--help` names its standard folders. */
  readonly help: string;
  /** Its standard folders in this environment, whether or not they exist (`home`: "" when unknown). */
  folders(env: Readonly<Record<string, string | undefined>>, home: string): string[];
  /** Whether a file found under one of its folders is one of its session logs. */
  isLog(path: string): boolean;
  /** Whether a file's path alone says it is one of its logs, wherever it is. */
  named(path: string): boolean;
  /** Whether a log's first 64 KiB say it is one of its logs (a file named on the command line). */
  sniff(head: string): boolean;
  /** Its rules (`named`, `sniff`) match widely: they are tried after every other source's. */
  readonly loose?: true;
  scanner(start: ScannerStart): LineScanner;
  /** A log read whole as one document rather than line by line (Gemini's older `.json` chats); undefined: not one. */
  scanDocument?(path: string): ScanResult | undefined;
  /**
   * Its sessions are in a store (a database, a folder of JSON files) rather than one file each: `isLog`, `named`
   * and the scanner then take a session's reference (`<database>#<session id>`), and the scanner reads the lines
   * the store gives for it (store.ts).
   */
  readonly store?: SessionStore;
}

/** Reads one file's lines (without their LF) and says what they held. */
export interface LineScanner {
  line(bytes: Buffer, start: number, end: number): void;
  result(): ScanResult;
}

export type ScanResult = Pick<FileScan, "facts" | "records" | "state" | "badLines">;

/** A scanner's records in the order of its map (the last record of a request last), as columns. */
export function columnsOf(records: RecordMap): FileScan["records"] {
  return records.columns();
}

/** Where a scanner starts: empty, or where the previous read of the same (grown) file stopped. */
export interface ScannerStart {
  readonly agent: UsageAgent;
  readonly path: string;
  readonly previous?: ScanResult | undefined;
}

export function freshFacts(agent: UsageAgent, subagent = false): SessionFacts {
  return { agent, sessionId: null, project: null, start: null, end: null, status: "unknown", subagent };
}

/** Carries a previous scan's records forward, keyed, so the last record of a request still wins after an append. */
export function recordMap(start: ScannerStart): RecordMap {
  return new RecordMap(start.previous?.records);
}

export function copyState(previous: ScanResult | undefined): ScannerState {
  return { ...(previous?.state ?? {}) };
}

/** True when `marker` occurs in the line's bytes. */
export function lineHas(bytes: Buffer, start: number, end: number, marker: Buffer): boolean {
  return bytes.subarray(start, end).indexOf(marker) !== -1;
}

/** The line as a JSON object, or undefined (not JSON, not an object). */
export function parseLine(bytes: Buffer, start: number, end: number): JsonObject | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(bytes.toString("utf8", start, end)) as JsonValue;
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}

/**
 * One line as a scanner reads it: parsed when `worthParsing` (it may hold what the scanner needs), else only its time
 * noted, from its bytes. `"bad"` for a line that is not a JSON object, counted by the scanner as malformed.
 */
export function readLine(
  bytes: Buffer,
  start: number,
  end: number,
  worthParsing: boolean,
  facts: SessionFacts,
): JsonObject | "skipped" | "bad" {
  if (!worthParsing) {
    if (notAnObject(bytes, start, end)) return "bad";
    noteTime(facts, timestampOf(bytes, start, end));
    return "skipped";
  }
  return parseLine(bytes, start, end) ?? "bad";
}

const TIMESTAMP_KEY = Buffer.from('"timestamp"');

/**
 * The last `"timestamp": "…"` of a line, found without parsing it (a raw quote cannot occur inside a JSON
 * string, so the bytes are a key). Used for lines not worth parsing (tool results), to keep the session's span.
 */
function timestampOf(bytes: Buffer, start: number, end: number): number | null {
  const line = bytes.subarray(start, end);
  const at = line.lastIndexOf(TIMESTAMP_KEY);
  if (at === -1) return null;
  let from = at + TIMESTAMP_KEY.length;
  while (from < line.length && (line[from] === 0x3a || line[from] === 0x20)) from++;
  if (line[from] !== 0x22) return null;
  from++;
  const close = line.indexOf(0x22, from);
  if (close === -1 || close - from > 40) return null;
  return epochOf(line.toString("latin1", from, close));
}

/** Epoch ms of an ISO time, or null. */
export function epochOf(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : at;
}

/** Widens the session's span to include `time`. */
export function noteTime(facts: SessionFacts, time: number | null): void {
  if (time === null) return;
  if (facts.start === null || time < facts.start) facts.start = time;
  if (facts.end === null || time > facts.end) facts.end = time;
}

/**
 * Whether a line cannot be a JSON object: it does not open with `{` and close with `}` (spaces aside). A cut or
 * garbled line is counted as malformed this way without parsing it; lines that carry usage are parsed anyway.
 */
function notAnObject(bytes: Buffer, start: number, end: number): boolean {
  let from = start;
  let to = end - 1;
  while (from <= to && isSpace(bytes[from])) from++;
  while (to >= from && isSpace(bytes[to])) to--;
  return from > to || bytes[from] !== 0x7b || bytes[to] !== 0x7d;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

/**
 * Whether a usage record is malformed (counted with the malformed lines, not a request): a count it has that is
 * not a non-negative number (`"NaN"`, `-5`), or a time it has that is not a date. Taken as a request, it would be
 * a row of zeros, or one with no day.
 */
export function malformedUsage(usage: JsonObject | undefined, fields: readonly string[], timestamp: JsonValue | undefined): boolean {
  if (timestamp !== undefined && (typeof timestamp !== "string" || epochOf(timestamp) === null)) return true;
  for (const field of fields) {
    const value = usage?.[field];
    if (value !== undefined && value !== null && !(typeof value === "number" && Number.isFinite(value) && value >= 0)) return true;
  }
  return false;
}

/** A non-negative integer count from the wire, else 0. */
export function count(value: JsonValue | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * A request's key: two 53-bit hashes (cyrb53, two seeds) of its ids. Keys are held for every request across
 * all files and stored in the cache, so they are two numbers (16 bytes) rather than the ids' 60 characters. Two
 * requests are taken for one only when both hashes agree: at 106 bits, a million keys collide with odds below
 * 10^-19 (ledger.ts: a collision of the table's slot, or of one hash, is told apart by the other).
 */
export function requestKey(text: string): RequestKey {
  const hi = cyrb53(text, 0x9e3779b9);
  const lo = cyrb53(text, 0x85ebca6b);
  return { id: `${hi}.${lo}`, hi, lo };
}

/**
 * A short hash of a text, and of some numbers after it as their bytes (the same two hashes in base 36): what
 * caches are keyed by. 106 bits: two different keys agree by accident with odds below 10^-30.
 */
export function textHash(text: string, numbers?: Float64Array): string {
  const words = numbers === undefined ? undefined : new Uint16Array(numbers.buffer, numbers.byteOffset, numbers.length * 4);
  return `${cyrb53(text, 0x9e3779b9, words).toString(36)}.${cyrb53(text, 0x85ebca6b, words).toString(36)}`;
}

/** cyrb53 of the text's UTF-16 code units, then of `words` when given. */
function cyrb53(text: string, seed: number, words?: Uint16Array): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  for (let i = 0; words !== undefined && i < words.length; i++) {
    const word = words[i] ?? 0;
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
