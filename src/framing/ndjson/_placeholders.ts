/**
 * The framer's side of held strings (`FramerOptions.holdStrings`, framing/held-strings.ts): of the long
 * strings the skimmer found (a tool's output), those whose JSON text is exactly what `JSON.stringify`
 * writes for their value are not decoded: their bytes are held and the record gets a short placeholder
 * in their place. A writer of our own format splices the bytes back where the placeholder is, so the
 * output is byte for byte what a full read writes. Every other string is read as usual.
 *
 * Canonical means what `JSON.stringify` writes: `\" \\ \n \r \t \b \f`, `\u00XX` in lowercase for the
 * other control characters, nothing else escaped, valid UTF-8 (the skimmer has checked the UTF-8, the
 * escapes' syntax, and refused `\/` and escaped printable ASCII). So only `\u` escapes are left to check
 * here. An escaped lone surrogate (`\ud800`, which JSON.stringify also writes) is taken as not canonical:
 * telling it from half of an escaped pair costs more than reading the rare string that has one. Raw
 * U+2028 and U+2029 are canonical (JSON.stringify writes them as they are).
 */

import type { StringHolder } from "../held-strings.ts";

const BACKSLASH = 0x5c;
const U = 0x75;
const encoder = new TextEncoder();

/** Four bytes with no backslash among them pass as one (the word is XORed with four backslashes: a zero byte is one). */
const FOUR_BACKSLASHES = 0x5c5c5c5c;

/**
 * Whether the string's JSON text `[start, end)` (quotes excluded) is what JSON.stringify writes for its
 * value. One pass in JavaScript, four bytes at a time where they hold no backslash, each escape stepped
 * over whole (so `\\u` is a backslash and a `u`). A native search for `\u` measured slower: tool output
 * is full of `\u001b` (ANSI colours), and each hit costs a call.
 */
export function isCanonicalJsonString(bytes: Uint8Array, start: number, end: number): boolean {
  const base = bytes.byteOffset;
  const words = new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
  let i = start;
  while (i < end) {
    if (((base + i) & 3) === 0 && i + 4 <= end) {
      const word = (words[(base + i) >>> 2] as number) ^ FOUR_BACKSLASHES;
      if (((word - 0x01010101) & ~word & 0x80808080) === 0) {
        i += 4;
        continue;
      }
    }
    if (bytes[i] !== BACKSLASH) {
      i++;
      continue;
    }
    const step = canonicalEscapeLength(bytes, i);
    if (step === 0) return false;
    i += step;
  }
  return true;
}

/** Bytes taken by the escape at `i` (the skimmer has checked its syntax), 0 when JSON.stringify would not write it so. */
function canonicalEscapeLength(bytes: Uint8Array, i: number): number {
  if (bytes[i + 1] !== U) return 2; // a short escape: the skimmer took only canonical ones
  // JSON.stringify writes \u only for control characters without a short form: \u0000–\u001f, lowercase.
  if (bytes[i + 2] !== 0x30 || bytes[i + 3] !== 0x30) return 0;
  const high = bytes[i + 4] as number;
  const low = bytes[i + 5] as number;
  if (high !== 0x30 && high !== 0x31) return 0;
  const lowValue = low >= 0x30 && low <= 0x39 ? low - 0x30 : low >= 0x61 && low <= 0x66 ? low - 0x61 + 10 : -1;
  if (lowValue < 0) return 0; // uppercase hex
  const code = (high - 0x30) * 16 + lowValue;
  return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 0 : 6;
}

/**
 * The line with the skipped ranges `[start, end)` (quotes excluded) that can be held replaced by
 * placeholders; `undefined` when none can (the line is then read as usual). Each range gets a placeholder
 * of its own, even when two hold the same text (Claude's `stdout` repeats the tool_result's): telling
 * them equal costs a pass over both, and nothing that passes placeholders on compares them.
 */
export function withPlaceholders(
  bytes: Uint8Array,
  ranges: readonly number[],
  held: StringHolder,
  callersMemory: boolean,
): Uint8Array | undefined {
  const cuts: number[] = [];
  const placeholders: Uint8Array[] = [];
  for (let r = 0; r < ranges.length; r += 2) {
    const start = ranges[r] as number;
    const end = ranges[r + 1] as number;
    if (!isCanonicalJsonString(bytes, start, end)) continue;
    if (held.heldBytes + end - start + 2 > held.maxBytes) continue;
    // A line the framer joined is its own, and held as it is; the caller's chunk may be reused: copied.
    const placeholder = held.hold(callersMemory ? bytes.slice(start - 1, end + 1) : bytes.subarray(start - 1, end + 1));
    cuts.push(start, end);
    placeholders.push(encoder.encode(JSON.stringify(placeholder).slice(1, -1)));
  }
  return cuts.length === 0 ? undefined : replaceRanges(bytes, cuts, placeholders);
}

function replaceRanges(bytes: Uint8Array, cuts: readonly number[], placeholders: readonly Uint8Array[]): Uint8Array {
  let size = bytes.length;
  for (let c = 0; c < cuts.length; c += 2)
    size += (placeholders[c / 2] as Uint8Array).length - ((cuts[c + 1] as number) - (cuts[c] as number));
  const out = new Uint8Array(size);
  let from = 0;
  let at = 0;
  for (let c = 0; c < cuts.length; c += 2) {
    const start = cuts[c] as number;
    out.set(bytes.subarray(from, start), at);
    at += start - from;
    const placeholder = placeholders[c / 2] as Uint8Array;
    out.set(placeholder, at);
    at += placeholder.length;
    from = cuts[c + 1] as number;
  }
  out.set(bytes.subarray(from), at);
  return out;
}
