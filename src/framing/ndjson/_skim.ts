/**
 * Selective reading (`ReadOptions.fields: "summary"`): finds the long string values of a record that
 * its reader does not need (a tool's output, written once or twice per record) by scanning bytes,
 * so they are neither decoded nor parsed. What is skipped is still checked: every skipped string must
 * be well-formed JSON string text (escapes, no raw control characters) in valid UTF-8; on anything
 * else the skimmer gives up and the line is read in full, so a bad record is reported exactly as
 * without the option. docs/benchmarks.md ("Selective reading") gives the contract.
 */
import { middleCut } from "./_skim-ends.ts";
import type { EndsOptions } from "./tool-output-ends.ts";
import { nativeScanner } from "./_skim-native.ts";

/** Which string values may be skipped. */
export interface SkimOptions {
  /** Keys whose long string values may be skipped anywhere (`stdout`, `aggregated_output`). */
  readonly keys: ReadonlySet<string>;
  /** Keys whose long string values may be skipped inside an object whose `type` (written before them) is `tool_result`. */
  readonly toolResultKeys: ReadonlySet<string>;
  /** Shortest string value skipped, in bytes; shorter ones cost less to parse than to skip. */
  readonly minBytes: number;
  /** Shortest line skimmed, in bytes (default 64 KiB): skimming pays only where most bytes can be skipped. */
  readonly minLineBytes?: number;
  /**
   * Says a string must be kept after all (the redaction stage keeps any that could hold a secret, so its
   * counts stay exact), asked within the pass that checks the string's bytes: no text is made of them.
   */
  readonly keep?: SkipCheck;
  /**
   * Instead of skipping a string whole, keep its ends as a view shows them (`_skim-ends.ts`; `render`): its
   * first and last lines, the lines between emptied. Strings it cannot cut so are kept whole. Only where the
   * WebAssembly scan runs (it counts the line breaks); elsewhere nothing is cut.
   */
  readonly ends?: EndsOptions;
}

/**
 * A check of the bytes of a string that would be skipped (its JSON text: escapes undecoded; a string that
 * escapes a printable ASCII character is never skipped), made in two steps: `near` at each byte whose
 * `anchors` entry is not 0, as the skimmer's pass reaches it, then `confirm` once the string's end is known,
 * when `near` said yes anywhere.
 */
interface SkipCheck {
  /**
   * `"secret-triggers"`: the anchors and `near` are the redaction stage's secret triggers, which the native
   * scanner (`_skim-native.ts`) has built in, so it may test them itself (they are compared in its tests).
   */
  readonly builtIn?: "secret-triggers";
  /** Per byte value, 0 or a number handed to `near` (only printable ASCII bytes other than `"` and `\\`). */
  readonly anchors: Uint8Array;
  /** Whether the bytes next to `i` may matter (the string starts at `start`; the byte after `i` may be its closing quote). */
  near(bytes: Uint8Array, i: number, start: number, anchor: number): boolean;
  /** Whether the string `[start, end)` is to be kept, given where `near` said yes (never empty). */
  confirm(bytes: Uint8Array, start: number, end: number, at: readonly number[]): boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A native UTF-8 validator (Node's `buffer.isUtf8`), handed in by a Node entry (`agentstream summary`): this
 * layer imports no Node module, so without one the check below runs in JavaScript, byte by byte.
 */
let nativeUtf8: ((bytes: Uint8Array) => boolean) | undefined;

/**
 * Checks the UTF-8 of the strings that may be skipped with `validUtf8` (one native call over each string)
 * instead of byte by byte; the other strings of a line are checked as before. Same verdicts either way.
 */
export function useUtf8Validator(validUtf8: ((bytes: Uint8Array) => boolean) | undefined): void {
  nativeUtf8 = validUtf8;
}

/**
 * Whether the strings that may be skipped are scanned by the WebAssembly scanner where it is available (the
 * default; it runs only with a native UTF-8 validator, since it passes over non-ASCII bytes). Tests turn it
 * off to compare it with the JavaScript scan.
 */
let simdScan = true;
export function useSimdScan(enabled: boolean): void {
  simdScan = enabled;
}

/**
 * Memory for a long line of `length` bytes that `skimRecord` will read, where the WebAssembly scan reads it
 * (no copy into the scan's memory), or undefined when that scan does not run here. The view is the line's
 * until the next line is joined or skimmed: the framer hands out no bytes of it, only text decoded from it.
 */
export function skimLineMemory(length: number): Uint8Array | undefined {
  return nativeUtf8 !== undefined && simdScan ? nativeScanner()?.lineMemory(length) : undefined;
}

/**
 * The byte ranges `[start, end)` of the string values to skip, quotes excluded, in order; an empty
 * list when there is nothing to skip or anything looks unusual (the caller then reads the line in full).
 */
export function skimRecord(bytes: Uint8Array, options: SkimOptions): number[] {
  const ranges: number[] = [];
  // Per open container: is it an object, the key just read (objects), and whether `type` was `tool_result`.
  const isObject: boolean[] = [];
  const keys: (string | undefined)[] = [];
  const toolResult: boolean[] = [];
  let expectKey = false;
  nativeScanner()?.forget();
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c === QUOTE) {
      const depth = isObject.length - 1;
      // A value that may be skipped is checked for `keep` in the same pass that finds its end.
      const key = keys[depth];
      const candidate =
        !expectKey &&
        isObject[depth] === true &&
        key !== undefined &&
        key !== "type" &&
        skippable(key, toolResult[depth] === true, options);
      anchorsSeen.length = 0;
      const end = stringEnd(bytes, i + 1, candidate ? options.keep : undefined, candidate ? nativeUtf8 : undefined);
      if (end < 0) return [];
      if (expectKey && isObject[depth] === true) {
        keys[depth] = end - i - 1 <= 64 ? asciiOf(bytes, i + 1, end) : undefined;
        expectKey = false;
      } else if (depth >= 0 && isObject[depth] === true) {
        const key = keys[depth];
        if (key === "type") toolResult[depth] = end - i - 1 === 11 && asciiOf(bytes, i + 1, end) === "tool_result";
        else if (end - i - 1 >= options.minBytes && key !== undefined && skippable(key, toolResult[depth] === true, options)) {
          if (options.keep === undefined || anchorsSeen.length === 0 || !options.keep.confirm(bytes, i + 1, end, anchorsSeen)) {
            if (options.ends === undefined) ranges.push(i + 1, end);
            else cutEnds(bytes, i + 1, end, options.ends, ranges);
          }
        }
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      isObject.push(c === 0x7b);
      keys.push(undefined);
      toolResult.push(false);
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      isObject.pop();
      keys.pop();
      toolResult.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      expectKey = isObject[isObject.length - 1] === true;
    }
  }
  return ranges;
}

/** Line breaks counted by the last native scan of a string that may be skipped; -1 after a JavaScript scan. */
let lastNewlines = -1;
/** The bytes that replace each range of a `ranges` list made with `ends` (in order), for `withoutRanges`. */
const rangeFills = new WeakMap<readonly number[], Uint8Array[]>();

function cutEnds(bytes: Uint8Array, start: number, end: number, ends: EndsOptions, ranges: number[]): void {
  const cut = lastNewlines < 0 ? undefined : middleCut(bytes, start, end, lastNewlines, ends);
  if (cut === undefined) return;
  let fills = rangeFills.get(ranges);
  if (fills === undefined) {
    fills = [];
    rangeFills.set(ranges, fills);
  }
  ranges.push(cut.from, cut.to);
  fills.push(cut.fill);
}

function skippable(key: string, inToolResult: boolean, options: SkimOptions): boolean {
  return options.keys.has(key) || (inToolResult && options.toolResultKeys.has(key));
}

/** A short key or value as text when it is plain ASCII without escapes, else undefined. */
function asciiOf(bytes: Uint8Array, start: number, end: number): string | undefined {
  let text = "";
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c >= 0x80 || c === BACKSLASH) return undefined;
    text += String.fromCharCode(c);
  }
  return text;
}

/** What a byte is to `stringEnd`. */
const PLAIN = 0;
const QUOTE_BYTE = 1;
const ESCAPE = 2;
/** A control character or the first byte of a UTF-8 sequence. */
const OTHER = 3;
const ANCHOR = 4;

const BYTE_KINDS = new Uint8Array(256).map((_, c) =>
  c === QUOTE ? QUOTE_BYTE : c === BACKSLASH ? ESCAPE : c < 0x20 || c >= 0x80 ? OTHER : PLAIN,
);
/** BYTE_KINDS where non-ASCII bytes are PLAIN: their UTF-8 is checked by one native call over the string. */
const ASCII_KINDS = BYTE_KINDS.map((kind, c) => (c >= 0x80 ? PLAIN : kind));
/** A kinds table with a check's anchors marked, made once per check and table. */
const kindsWithAnchors = new WeakMap<SkipCheck, Uint8Array[]>();
function kindsFor(check: SkipCheck | undefined, asciiOnly: boolean): Uint8Array {
  const base = asciiOnly ? ASCII_KINDS : BYTE_KINDS;
  if (check === undefined) return base;
  let tables = kindsWithAnchors.get(check);
  if (tables === undefined) {
    const mark = (table: Uint8Array) =>
      table.map((kind, c) => (kind === PLAIN && c < 0x80 && (check.anchors[c] ?? 0) !== 0 ? ANCHOR : kind));
    tables = [mark(BYTE_KINDS), mark(ASCII_KINDS)];
    kindsWithAnchors.set(check, tables);
  }
  return tables[asciiOnly ? 1 : 0] as Uint8Array;
}
/** Where `check.near` said yes in the string last scanned (one list, reused). */
const anchorsSeen: number[] = [];

/**
 * Where the JSON string whose text starts at `i` ends (the index of its closing quote), checking
 * every byte: escapes, no raw control character, valid UTF-8 (no overlong form, surrogate or value
 * past U+10FFFF). -1 on anything else, or when the line ends first. With a check, its anchors are
 * tested on the way (`anchorsSeen`). With `validUtf8`, non-ASCII bytes are passed over and the string's
 * UTF-8 is checked by it once its end is found.
 */
function stringEnd(bytes: Uint8Array, i: number, check?: SkipCheck, validUtf8?: (bytes: Uint8Array) => boolean): number {
  const native =
    validUtf8 !== undefined && simdScan && (check === undefined || check.builtIn === "secret-triggers") ? nativeScanner() : undefined;
  const end =
    native === undefined
      ? scanString(bytes, i, check, validUtf8 !== undefined)
      : native.stringEnd(bytes, i, check !== undefined, anchorsSeen);
  lastNewlines = native === undefined ? -1 : native.newlines();
  return end < 0 || validUtf8 === undefined || validUtf8(bytes.subarray(i, end)) ? end : -1;
}

function scanString(bytes: Uint8Array, i: number, check: SkipCheck | undefined, asciiOnly: boolean): number {
  const n = bytes.length;
  const start = i;
  const kinds = kindsFor(check, asciiOnly);
  while (i < n) {
    const c = bytes[i] as number;
    const kind = kinds[c];
    if (kind === PLAIN) {
      i++;
      continue;
    }
    if (kind === ANCHOR) {
      if ((check as SkipCheck).near(bytes, i, start, (check as SkipCheck).anchors[c] as number)) anchorsSeen.push(i);
      i++;
      continue;
    }
    if (kind === QUOTE_BYTE) return i;
    if (kind === ESCAPE) {
      const step = escapeLength(bytes, i);
      if (step === 0) return -1;
      i += step;
      continue;
    }
    const step = c < 0x20 ? 0 : utf8Length(bytes, i, c);
    if (step === 0) return -1;
    i += step;
  }
  return -1;
}

/**
 * Bytes taken by the escape at `i` (`\n`, `\u00e9`), 0 when it is not a JSON escape, nor when it
 * writes a printable ASCII character the long way (`\/`, `\u0041`): such a string is read in full,
 * since a secret's shape could hide behind the escape from the check `keep` makes.
 */
function escapeLength(bytes: Uint8Array, i: number): number {
  const e = bytes[i + 1];
  if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) return 2;
  if (e !== 0x75) return 0;
  for (let k = 2; k < 6; k++) {
    const h = bytes[i + k] ?? 0;
    if (!((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66))) return 0;
  }
  const printable = bytes[i + 2] === 0x30 && bytes[i + 3] === 0x30 && (bytes[i + 4] as number) >= 0x32 && (bytes[i + 4] as number) <= 0x37;
  return printable ? 0 : 6;
}

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

/** Bytes taken by the UTF-8 sequence that starts with `c` at `i`, 0 when it is not valid UTF-8. */
function utf8Length(bytes: Uint8Array, i: number, c: number): number {
  const c1 = bytes[i + 1];
  if (c >= 0xc2 && c <= 0xdf) return isContinuation(c1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!isContinuation(c1) || !isContinuation(bytes[i + 2])) return 0;
    if ((c === 0xe0 && (c1 as number) < 0xa0) || (c === 0xed && (c1 as number) > 0x9f)) return 0;
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!isContinuation(c1) || !isContinuation(bytes[i + 2]) || !isContinuation(bytes[i + 3])) return 0;
    if ((c === 0xf0 && (c1 as number) < 0x90) || (c === 0xf4 && (c1 as number) > 0x8f)) return 0;
    return 4;
  }
  return 0;
}

/** `bytes` without the skipped ranges' contents (each skipped string becomes `""`, or, with `ends`, its ends). */
export function withoutRanges(bytes: Uint8Array, ranges: readonly number[]): Uint8Array {
  const fills = rangeFills.get(ranges);
  let kept = bytes.length;
  for (let r = 0; r < ranges.length; r += 2) kept -= (ranges[r + 1] as number) - (ranges[r] as number) - (fills?.[r / 2]?.length ?? 0);
  const out = new Uint8Array(kept);
  let from = 0;
  let at = 0;
  for (let r = 0; r < ranges.length; r += 2) {
    out.set(bytes.subarray(from, ranges[r]), at);
    at += (ranges[r] as number) - from;
    const fill = fills?.[r / 2];
    if (fill !== undefined) {
      out.set(fill, at);
      at += fill.length;
    }
    from = ranges[r + 1] as number;
  }
  out.set(bytes.subarray(from), at);
  return out;
}
