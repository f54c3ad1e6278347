/**
 * Reading a long tool output as its ends only (`SkimOptions.ends`, for `render`, whose view shows the first and
 * last few lines of a long output and says how many were hidden): the string's JSON text keeps its first lines
 * (the blank ones the view trims, then `head` more) and its last (the trailing blank ones, then `tail`). The first
 * line between holds the view's marker (`EndsOptions.marker`: the output says it was cut) and the others become
 * empty (it says how much), so the view counts the same lines and shows the same ones. A string of one line (a
 * base64 image) is kept as its start when that is plain printable ASCII longer than any row the view cuts a
 * line to (`columns`): the view shows that start, cut, either way. The string
 * has been checked whole before (escapes, UTF-8, the secret check): the cuts fall on escaped line breaks, so
 * what is kept is valid JSON string text.
 */
import type { EndsOptions } from "./tool-output-ends.ts";

const BACKSLASH = 0x5c;
/** Bytes kept of a one-line string past the columns the view shows (its cut to width looks a little further). */
const ROW_SLACK = 64;
/** A kept line is decoded to test whether it is blank; one longer than this is not (the string is kept whole). */
const MAX_TESTED_LINE = 64 * 1024;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The middle `[from, to)` of the string `[start, end)` to replace with `fill`; undefined to keep the string whole. */
export function middleCut(
  bytes: Uint8Array,
  start: number,
  end: number,
  newlines: number,
  ends: EndsOptions,
): { from: number; to: number; fill: Uint8Array } | undefined {
  if (newlines === 0) return startCut(bytes, start, end, ends.columns);
  if (newlines + 1 < ends.head + ends.tail + ends.minHidden) return undefined;
  const head = keptHead(bytes, start, end, ends.head);
  if (head === undefined) return undefined;
  const tail = keptTail(bytes, head.to, end, ends.tail);
  if (tail === undefined) return undefined;
  const hidden = newlines + 1 - head.lines - tail.lines;
  if (hidden < ends.minHidden) return undefined;
  // `hidden` lines, each ended by an escaped line break: the first holds the marker, the others are empty.
  const marker = encoder.encode(JSON.stringify(ends.marker).slice(1, -1));
  const fill = new Uint8Array(marker.length + 2 * hidden);
  fill.set(marker);
  for (let k = marker.length; k < fill.length; k += 2) {
    fill[k] = BACKSLASH;
    fill[k + 1] = 0x6e;
  }
  return { from: head.to, to: tail.from, fill };
}

/** A one-line string as its first bytes, when those are printable ASCII (no escape, no space) past what the view shows of a line. */
function startCut(
  bytes: Uint8Array,
  start: number,
  end: number,
  columns: number,
): { from: number; to: number; fill: Uint8Array } | undefined {
  const keep = columns + ROW_SLACK;
  if (end - start <= 2 * keep) return undefined;
  for (let i = start; i < start + keep; i++) {
    const c = bytes[i] as number;
    if (c <= 0x20 || c >= 0x7f || c === BACKSLASH) return undefined;
  }
  return { from: start + keep, to: end, fill: new Uint8Array(0) };
}

/** Length of the escaped line break at `i` (`\n` 2, `\u000a` 6), 0 when none starts there; `i` starts an escape. */
function lineBreakAt(bytes: Uint8Array, i: number): number {
  const e = bytes[i + 1];
  if (e === 0x6e) return 2;
  if (e !== 0x75) return 0;
  return bytes[i + 2] === 0x30 && bytes[i + 3] === 0x30 && bytes[i + 4] === 0x30 && ((bytes[i + 5] as number) | 0x20) === 0x61 ? 6 : 0;
}

/** Where the next escaped line break at or after `i` (an escape boundary) starts, and its length; undefined when none before `end`. */
function nextLineBreak(bytes: Uint8Array, i: number, end: number): { at: number; length: number } | undefined {
  for (let at = bytes.indexOf(BACKSLASH, i); at >= 0 && at < end; at = bytes.indexOf(BACKSLASH, at)) {
    const length = lineBreakAt(bytes, at);
    if (length > 0) return { at, length };
    at += bytes[at + 1] === 0x75 ? 6 : 2;
  }
  return undefined;
}

/** Where the last escaped line break before `end` (after `start`) starts, and its length; undefined when none. */
function previousLineBreak(bytes: Uint8Array, start: number, end: number): { at: number; length: number } | undefined {
  // (lastIndexOf from -1 would search from the array's end: never asked for here.)
  for (
    let at = end > start ? bytes.lastIndexOf(BACKSLASH, end - 1) : -1;
    at >= start;
    at = at > start ? bytes.lastIndexOf(BACKSLASH, at - 1) : -1
  ) {
    // A backslash starts an escape when an even number of backslashes stand right before it.
    let run = at;
    while (run > start && bytes[run - 1] === BACKSLASH) run--;
    if ((at - run) % 2 === 1) continue;
    const length = lineBreakAt(bytes, at);
    if (length > 0 && at + length <= end) return { at, length };
  }
  return undefined;
}

/** Whether the line `[from, to)` of JSON string text is blank as the view tests it (`trim() === ""`); undefined when too long to test. */
function isBlank(bytes: Uint8Array, from: number, to: number): boolean | undefined {
  if (from === to) return true;
  const first = bytes[from] as number;
  // Most lines start with a printable ASCII character other than a backslash: not blank, nothing to decode.
  if (first > 0x20 && first < 0x7f && first !== BACKSLASH) return false;
  if (to - from > MAX_TESTED_LINE) return undefined;
  return (JSON.parse(`"${decoder.decode(bytes.subarray(from, to))}"`) as string).trim() === "";
}

/** The first lines the view shows (after its leading blank ones): their count and where they end (after their line break). */
function keptHead(bytes: Uint8Array, start: number, end: number, head: number): { lines: number; to: number } | undefined {
  let lines = 0;
  let shown = 0;
  let at = start;
  while (shown < head) {
    const found = nextLineBreak(bytes, at, end);
    if (found === undefined) return undefined;
    if (shown === 0) {
      const blank = isBlank(bytes, at, found.at);
      if (blank === undefined) return undefined;
      if (!blank) shown++;
    } else shown++;
    lines++;
    at = found.at + found.length;
  }
  return { lines, to: at };
}

/** The last lines the view shows (before its trailing blank ones): their count and where they start; after `after`. */
function keptTail(bytes: Uint8Array, after: number, end: number, tail: number): { lines: number; from: number } | undefined {
  let lines = 0;
  let shown = 0;
  let to = end;
  let from = end;
  while (shown < tail) {
    const found = previousLineBreak(bytes, after, to);
    if (found === undefined) return undefined;
    from = found.at + found.length;
    if (shown === 0) {
      const blank = isBlank(bytes, from, to);
      if (blank === undefined) return undefined;
      if (!blank) shown++;
    } else shown++;
    lines++;
    to = found.at;
  }
  return { lines, from };
}
