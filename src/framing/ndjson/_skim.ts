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
import { createNativeScanner, type NativeScanner, type SkimKeyword } from "./_skim-native.ts";

export type { SkimKeyword };

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
   * counts stay exact), found within the pass that checks the string's bytes: no text is made of them.
   */
  readonly keep?: SkipCheck;
  /**
   * Instead of skipping a string whole, keep its ends as a view shows them (`_skim-ends.ts`; `render`): its
   * first and last lines, the lines between emptied. Strings it cannot cut so are kept whole.
   */
  readonly ends?: EndsOptions;
}

/**
 * The strings to keep although they may be skipped: those whose JSON text (escapes undecoded; a string that escapes a
 * printable ASCII character is never skipped) holds one of `keywords` (printable ASCII, never `"` or `\\`), found
 * from the byte at each keyword's `at`.
 */
interface SkipCheck {
  readonly keywords: readonly SkimKeyword[];
}

/** `[start, end)` pairs of the strings to leave out; with `ends`, the bytes that replace each one, in order. */
export type SkimRanges = number[] & { fills?: Uint8Array[] };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/**
 * Skims the long lines of one reader (the framer makes one per parser): the scan's WebAssembly instance and its
 * tables (made from the options' keywords when the first line is skimmed), and the scan's results, live here.
 */
export class Skimmer {
  readonly options: SkimOptions;
  /** The WebAssembly scanner: undefined until first needed, null where it cannot run (the JavaScript scan runs). */
  private native: NativeScanner | null | undefined;
  /** Per byte value what it is to the JavaScript scan (the keep check's anchors marked). */
  private readonly kinds: Uint8Array;
  /** The keywords anchored on each byte value (JavaScript scan), by the index in `kinds`' anchor entries. */
  private readonly anchored: readonly (readonly SkimKeyword[])[];
  /** Line breaks counted by the last scan of a string that may be skipped. */
  private newlines = 0;
  /** Whether a keep keyword was found in the last string scanned. */
  private found = false;

  /** `scan: "javascript"` leaves the WebAssembly scan out (tests compare the two). */
  constructor(options: SkimOptions, scan: "auto" | "javascript" = "auto") {
    this.options = options;
    if (scan === "javascript") this.native = null;
    const byAnchor = new Map<number, SkimKeyword[]>();
    for (const keyword of options.keep?.keywords ?? []) {
      for (const c of anchorBytes(keyword)) byAnchor.set(c, [...(byAnchor.get(c) ?? []), keyword]);
    }
    this.anchored = [...byAnchor.values()];
    const anchorOf = new Map([...byAnchor.keys()].map((c, index) => [c, index] as const));
    this.kinds = BYTE_KINDS.map((kind, c) => (kind === PLAIN && anchorOf.has(c) ? ANCHOR + (anchorOf.get(c) as number) : kind));
  }

  private scanner(): NativeScanner | undefined {
    if (this.native === undefined) this.native = createNativeScanner(this.options.keep?.keywords ?? []) ?? null;
    return this.native ?? undefined;
  }

  /**
   * Memory for a long line of `length` bytes that `skim` will read, where the WebAssembly scan reads it (no copy into
   * the scan's memory), or undefined when that scan does not run here. The view is the line's until the next line is
   * joined or skimmed: the framer hands out no bytes of it, only text decoded from it.
   */
  lineMemory(length: number): Uint8Array | undefined {
    return this.scanner()?.lineMemory(length);
  }

  /**
   * The byte ranges `[start, end)` of the string values to skip, quotes excluded, in order; an empty
   * list when there is nothing to skip or anything looks unusual (the caller then reads the line in full).
   */
  skim(bytes: Uint8Array): SkimRanges {
    const options = this.options;
    const ranges: SkimRanges = [];
    // Per open container: is it an object, the key just read (objects), and whether `type` was `tool_result`.
    const isObject: boolean[] = [];
    const keys: (string | undefined)[] = [];
    const toolResult: boolean[] = [];
    let expectKey = false;
    this.scanner()?.forget();
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
        const end = candidate ? this.candidateEnd(bytes, i + 1) : this.plainEnd(bytes, i + 1);
        if (end < 0) return [];
        if (expectKey && isObject[depth] === true) {
          keys[depth] = end - i - 1 <= 64 ? asciiOf(bytes, i + 1, end) : undefined;
          expectKey = false;
        } else if (depth >= 0 && isObject[depth] === true) {
          if (key === "type") toolResult[depth] = end - i - 1 === 11 && asciiOf(bytes, i + 1, end) === "tool_result";
          else if (candidate && end - i - 1 >= options.minBytes && !this.found) {
            if (options.ends === undefined) ranges.push(i + 1, end);
            else cutEnds(bytes, i + 1, end, this.newlines, options.ends, ranges);
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

  /** The end of a string that is read whatever it holds (a key, a short value): checked by the JavaScript scan. */
  private plainEnd(bytes: Uint8Array, i: number): number {
    return this.scanString(bytes, i, BYTE_KINDS);
  }

  /**
   * The end of a string that may be skipped, its keep keywords looked for (`found`) and its line breaks counted on
   * the way: by the WebAssembly scan where it runs, else in JavaScript.
   */
  private candidateEnd(bytes: Uint8Array, i: number): number {
    const native = this.scanner();
    if (native === undefined) return this.scanString(bytes, i, this.kinds);
    const seen: number[] = [];
    const end = native.stringEnd(bytes, i, this.options.keep !== undefined, seen);
    this.found = seen.length > 0;
    this.newlines = native.newlines();
    return end;
  }

  /**
   * Where the JSON string whose text starts at `i` ends (the index of its closing quote), checking every byte:
   * escapes, no raw control character, valid UTF-8 (no overlong form, surrogate or value past U+10FFFF). -1 on
   * anything else, or when the line ends first. With anchors in `kinds`, the keywords are looked for on the way.
   */
  private scanString(bytes: Uint8Array, i: number, kinds: Uint8Array): number {
    const n = bytes.length;
    const start = i;
    this.found = false;
    this.newlines = 0;
    while (i < n) {
      const c = bytes[i] as number;
      const kind = kinds[c] as number;
      if (kind === PLAIN) {
        i++;
        continue;
      }
      if (kind >= ANCHOR) {
        if (!this.found)
          this.found = (this.anchored[kind - ANCHOR] ?? []).some((keyword) => keywordAt(bytes, i - keyword.at, start, keyword));
        i++;
        continue;
      }
      if (kind === QUOTE_BYTE) return i;
      if (kind === ESCAPE) {
        const step = escapeLength(bytes, i);
        if (step === 0) return -1;
        if (isLineBreak(bytes, i)) this.newlines++;
        i += step;
        continue;
      }
      const step = c < 0x20 ? 0 : utf8Length(bytes, i, c);
      if (step === 0) return -1;
      i += step;
    }
    return -1;
  }
}

/** The ranges `skimRecord` skips in one line, with a skimmer of its own (tests, benches; a reader keeps one `Skimmer`). */
export function skimRecord(bytes: Uint8Array, options: SkimOptions): SkimRanges {
  return new Skimmer(options).skim(bytes);
}

/** The bytes a keyword is found from (both cases of a letter where case is ignored). */
function anchorBytes(keyword: SkimKeyword): number[] {
  const c = keyword.text.charCodeAt(keyword.at);
  return keyword.ignoreCase && /[a-z]/i.test(keyword.text.charAt(keyword.at)) ? [c | 0x20, c & ~0x20] : [c];
}

/** Whether `keyword` is written at `from` (not before `start`; the bytes after a string, its closing quote first, are in no keyword). */
function keywordAt(bytes: Uint8Array, from: number, start: number, keyword: SkimKeyword): boolean {
  if (from < start) return false;
  const text = keyword.text;
  for (let k = 0; k < text.length; k++) {
    const b = bytes[from + k];
    const c = text.charCodeAt(k);
    if (b === c) continue;
    // A letter in the other case (bit 5), where case is ignored.
    if (b === undefined || !keyword.ignoreCase || (b | 0x20) !== (c | 0x20) || (c | 0x20) < 0x61 || (c | 0x20) > 0x7a) return false;
  }
  return true;
}

/** Whether the escape at `i` writes a line break (`\\n`, `\\u000a`). */
function isLineBreak(bytes: Uint8Array, i: number): boolean {
  if (bytes[i + 1] === 0x6e) return true;
  return (
    bytes[i + 1] === 0x75 &&
    bytes[i + 2] === 0x30 &&
    bytes[i + 3] === 0x30 &&
    bytes[i + 4] === 0x30 &&
    ((bytes[i + 5] as number) | 0x20) === 0x61
  );
}

function cutEnds(bytes: Uint8Array, start: number, end: number, newlines: number, ends: EndsOptions, ranges: SkimRanges): void {
  const cut = middleCut(bytes, start, end, newlines, ends);
  if (cut === undefined) return;
  ranges.push(cut.from, cut.to);
  ranges.fills ??= [];
  ranges.fills.push(cut.fill);
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

/** What a byte is to `scanString`; from ANCHOR on, an anchor of the keywords at `anchored[kind - ANCHOR]`. */
const PLAIN = 0;
const QUOTE_BYTE = 1;
const ESCAPE = 2;
/** A control character or the first byte of a UTF-8 sequence. */
const OTHER = 3;
const ANCHOR = 4;

const BYTE_KINDS = new Uint8Array(256).map((_, c) =>
  c === QUOTE ? QUOTE_BYTE : c === BACKSLASH ? ESCAPE : c < 0x20 || c >= 0x80 ? OTHER : PLAIN,
);

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
export function withoutRanges(bytes: Uint8Array, ranges: SkimRanges): Uint8Array {
  const fills = ranges.fills;
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
