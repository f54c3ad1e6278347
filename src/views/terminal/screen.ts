/**
 * The renderer's output: pending text written once per block (every write self-contained), the
 * open message line and its styling, groups separated by blank lines, notes that wait for a line
 * to close or for a tool's result. Every other part writes through these.
 */
import { paint, type Role, sgrOf } from "../shared/color.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import { formatDuration } from "../shared/format.ts";
import { cutToWidth, displayWidth, splitAtWidth, visibleWidth } from "../shared/width.ts";
import { wrapLine } from "../shared/wrap.ts";
import type { Group, MessageState, RenderState } from "./state.ts";

/** Queues `text`; `endsLine` says whether it ends with a newline when the caller knows (a text built piece by piece is not read again). */
export function emit(r: RenderState, text: string, endsLine?: boolean): void {
  if (text === "") return;
  if (r.statusShown) {
    // The live status line is replaced, never kept: clear it before real output takes its row.
    r.pending.push("\r\x1b[2K");
    r.statusShown = false;
  }
  r.pending.push(text);
  r.atLineStart = endsLine ?? text.endsWith("\n");
  r.wroteAnything = true;
}

/**
 * Whole lines (ending in a newline), each wrapped at word boundaries to the width: a wrapped
 * row keeps the line's indent plus two columns, so no row is wider than the terminal.
 */
export function emitRows(r: RenderState, text: string): void {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  emit(
    r,
    `${body
      .split("\n")
      .map((row) => wrapLine(row, r.width, 0, "  "))
      .join("\n")}${body === text ? "" : "\n"}`,
  );
}

/** Writes what is pending. Mode full closes an open style first, so every write is self-contained. */
export function flush(r: RenderState): void {
  if (r.pending.length === 0) return;
  if (r.sgrIsOpen) {
    r.pending.push("\x1b[0m");
    r.sgrIsOpen = false;
  }
  const text = r.pending.length === 1 ? (r.pending[0] as string) : r.pending.join("");
  r.pending = [];
  r.write(text);
}

/** Closes the open message line (if any) and shows the notes that waited for it. */
export function settle(r: RenderState): void {
  if (r.current !== undefined) closeLine(r, r.current);
  if (r.deferred.length > 0) {
    const notes = r.deferred;
    r.deferred = [];
    for (const show of notes) show();
  }
}

/** Starts a new item: closes an open line, and separates groups at the top level by one blank line. */
export function begin(r: RenderState, group: Group, depth: number, item: string): void {
  settle(r);
  releaseAfterTool(r);
  r.heartbeatRun = undefined;
  if (
    depth === 0 &&
    r.lastGroup !== undefined &&
    (group === "message" || group === "footer" || r.lastGroup.group !== group || r.lastGroup.depth !== 0)
  ) {
    if (!(group === "text" && r.lastGroup.group === "text")) emit(r, "\n");
  }
  r.lastGroup = { group, depth };
  r.lastItem = item;
}

/** One whole line at `depth` (the text may hold newlines: later lines get `hang` after the indent). */
export function line(r: RenderState, depth: number, text: string, hang = ""): void {
  settle(r);
  const indent = indentOf(depth);
  emitRows(r, `${indent}${text.includes("\n") ? text.split("\n").join(`\n${indent}${hang}`) : text}\n`);
}

/** A status line (rate limit, retry, progress): shown now, or after the open message line when one is open. */
export function note(r: RenderState, show: () => void): void {
  if (r.current !== undefined) r.deferred.push(show);
  else show();
}

/** A side note (metric, notice, repair, unknown record): like `note`, and it also waits for the result of the tool call on screen. */
export function sideNote(r: RenderState, show: () => void): void {
  if (r.current !== undefined) r.deferred.push(show);
  else if (r.lastItem.startsWith("tool:") && r.tools.get(r.lastItem.slice(5))?.headerShown === true) r.afterTool.push(show);
  else show();
}

/** Mode full: draws "◷ working… 45 s · Bash running" over the last row (the next real output clears it). */
export function showStatus(r: RenderState, idleMs: number | undefined): void {
  if (!r.atLineStart) return;
  const running = [...r.tools.values()].filter((tool) => tool.depth === 0).map((tool) => tool.name);
  const parts = [`◷ working…${idleMs !== undefined && idleMs >= 1000 ? ` ${formatDuration(idleMs)}` : ""}`];
  if (running.length > 0) parts.push(`${running.slice(0, 3).join(", ")}${running.length > 3 ? ` +${running.length - 3}` : ""} running`);
  const text = cutToWidth(oneLine(parts.join(" · ")), r.width - 1).text;
  r.pending.push(`\r\x1b[2K${style(r, "meta", text)}`);
  r.statusShown = true;
}

/** Erases the live status line, if one is on screen (at the end of the stream). */
export function clearStatus(r: RenderState): void {
  if (!r.statusShown) return;
  r.pending.push("\r\x1b[2K");
  r.statusShown = false;
}

export function releaseAfterTool(r: RenderState): void {
  if (r.afterTool.length === 0) return;
  const notes = r.afterTool;
  r.afterTool = [];
  for (const show of notes) show();
}

function markerOf(r: RenderState, m: MessageState): string {
  if (m.kind !== "text") return style(r, "reasoning", "∴");
  if (m.role === "user") return style(r, "user", "›");
  if (m.role === "system" || m.role === "developer") return style(r, "system", "»");
  return style(r, "answerMark", "●");
}

function textRoleOf(m: MessageState): Role {
  if (m.kind !== "text") return "reasoning";
  if (m.role === "user") return "user";
  if (m.role === "system" || m.role === "developer") return "system";
  return "answer";
}

/** Makes `m` the open line: its marker on a new line (a continuation when it was interrupted). */
function enter(r: RenderState, m: MessageState): void {
  if (r.current === m) {
    if (r.mode === "full" && !r.sgrIsOpen && r.openSgr !== "") {
      emit(r, `\x1b[${r.openSgr}m`);
      r.sgrIsOpen = true;
    }
    return;
  }
  begin(r, "message", m.depth, `msg:${m.id}`);
  emit(r, `${indentOf(m.depth)}${markerOf(r, m)} `);
  m.col = indentOf(m.depth).length + 2;
  m.rowHasWord = false;
  m.started = true;
  m.fresh = true;
  m.newlines = 0;
  r.current = m;
  r.openSgr = sgrOf(r.mode, textRoleOf(m));
  if (r.openSgr !== "") {
    emit(r, `\x1b[${r.openSgr}m`);
    r.sgrIsOpen = true;
  }
}

/** Ends `m`'s line: resets its style and writes one newline. */
export function closeLine(r: RenderState, m: MessageState): void {
  if (m.wordHold !== "" && r.current === m) {
    // The line ends here (the message is done or something interrupts it): its held word goes first.
    const word = m.wordHold;
    m.wordHold = "";
    writeSegment(r, m, word);
  }
  if (r.sgrIsOpen || m.dirty) {
    emit(r, "\x1b[0m");
    r.sgrIsOpen = false;
  }
  m.dirty = false;
  if (!r.atLineStart) emit(r, "\n");
  m.newlines = 0;
  if (r.current === m) r.current = undefined;
  r.openSgr = "";
}

/** Whether `startRow` has anything to write: `m` is not the open line, its style is closed, or it owes line breaks. */
function needsRowStart(r: RenderState, m: MessageState): boolean {
  return r.current !== m || m.newlines > 0 || (r.mode === "full" && !r.sgrIsOpen && r.openSgr !== "");
}

/** Puts `m`'s line on screen and writes the line breaks it owes, before its next word. */
export function startRow(r: RenderState, m: MessageState): void {
  if (!needsRowStart(r, m)) return;
  if (r.current !== m) enter(r, m);
  else if (r.mode === "full" && !r.sgrIsOpen && r.openSgr !== "") enter(r, m);
  if (m.newlines > 0) {
    const breaks = Math.min(m.newlines, 2);
    m.newlines = 0;
    if (m.dirty) {
      emit(r, "\x1b[0m");
      m.dirty = false;
      r.sgrIsOpen = false;
    }
    emit(r, `${"\n".repeat(breaks)}${indentOf(m.depth)}  `);
    m.col = indentOf(m.depth).length + 2;
    m.rowHasWord = false;
    if (r.openSgr !== "" && !r.sgrIsOpen) {
      emit(r, `\x1b[${r.openSgr}m`);
      r.sgrIsOpen = true;
    }
  }
}

/** A wrapped row: a line break, the message's indent and the line's own. */
function wrapRow(r: RenderState, m: MessageState): void {
  emit(r, wrapText(m));
}

/** `wrapRow`'s text, its state changed as if it were written. */
function wrapText(m: MessageState): string {
  m.col = indentOf(m.depth).length + 2 + m.hang.length;
  m.rowHasWord = false;
  return `\n${indentOf(m.depth)}  ${m.hang}`;
}

/** Writes part of one line of `m` word by word; spaces wait for the word after them (none end a row). */
export function writeSegment(r: RenderState, m: MessageState, segment: string): void {
  if (writeFittingSegment(r, m, segment)) return;
  if (!segment.includes("\t") && !segment.includes("\x1b")) writePlainSegment(r, m, segment);
  else writeWords(r, m, segment);
}

/** At a line's first word: the line's own indent (a nested list, indented code) is kept on its wrapped rows, up to half the row. */
function takeHang(r: RenderState, m: MessageState): void {
  if (!m.lineStart) return;
  const base = indentOf(m.depth).length + 2;
  m.hang = m.spaces.length < (r.width - base) / 2 ? m.spaces : "";
  m.lineStart = false;
}

/** `writeSegment` word by word, for any text (exported for the test that checks the plain path against it). */
export function writeWords(r: RenderState, m: MessageState, segment: string): void {
  for (const token of segment.match(/[ \t]+|[^ \t]+/g) ?? []) {
    if (token.charCodeAt(0) === 0x20 || token.charCodeAt(0) === 0x09) {
      m.spaces += token.replace(/\t/g, "    ");
      continue;
    }
    startRow(r, m);
    takeHang(r, m);
    let word = token;
    let width = visibleWidth(word); // measured once per piece, not at each of the three tests below
    const gap = m.spaces.length;
    if (m.rowHasWord && m.col + gap + width > r.width) wrapRow(r, m);
    else if (gap > 0) {
      emit(r, m.spaces);
      m.col += gap;
    }
    m.spaces = "";
    // A word longer than a row loses each cut's columns: measuring what is left on every row made a
    // multi-MB word take minutes.
    while (word !== "" && m.col + width > r.width) {
      const [head, tail] = splitAtWidth(word, Math.max(r.width - m.col, 1));
      emit(r, head);
      wrapRow(r, m);
      word = tail;
      width -= visibleWidth(head);
    }
    if (word !== "") {
      emit(r, word);
      m.col += width;
      m.rowHasWord = true;
    }
    m.fresh = false;
  }
}

/** Printable ASCII only: one column per character. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * `writeSegment` for text without tabs and escape sequences (most prose; a run of joined deltas is a long
 * segment). It lays text out as `writeWords` does, word by word (`test/views/terminal/screen.test.ts` checks
 * both give the same output), but makes no string per word: the words and spaces that stay on one row are one
 * slice of the segment, so the output is a slice per row plus each row's break. In printable ASCII (a column
 * per character) a row's words are found at once by where the row ends, not word by word.
 */
export function writePlainSegment(r: RenderState, m: MessageState, segment: string): void {
  if (PRINTABLE_ASCII.test(segment)) {
    let first = 0;
    while (first < segment.length && segment.charCodeAt(first) === 0x20) first++;
    first = segment.indexOf(" ", first);
    if (first !== -1) {
      // The first word may open the line, take its hang or follow spaces owed from before: the word loop places it.
      writeWordLoop(r, m, segment.slice(0, first));
      writeAsciiRows(r, m, segment, first);
      return;
    }
  }
  writeWordLoop(r, m, segment);
}

/**
 * The rest of a printable ASCII segment after its first word (placed: the line is open, no spaces owed from
 * before): each row takes the words that end within its room at once, found with `lastIndexOf`.
 */
function writeAsciiRows(r: RenderState, m: MessageState, segment: string, at: number): void {
  let lastWordEnd = segment.length;
  while (lastWordEnd > at && segment.charCodeAt(lastWordEnd - 1) === 0x20) lastWordEnd--;
  let out = "";
  // segment[from, to) is output not yet in `out`; `to` is where the last word placed ends.
  let from = -1;
  let to = at;
  let col = m.col;
  let rowHasWord = m.rowHasWord;
  while (to < lastWordEnd) {
    const gapStart = to;
    let start = gapStart;
    while (segment.charCodeAt(start) === 0x20) start++;
    let end = segment.indexOf(" ", start);
    if (end === -1) end = segment.length;
    if (rowHasWord && col + end - gapStart > r.width) {
      if (from !== -1) out += segment.slice(from, to);
      out += wrapText(m);
      col = m.col;
      rowHasWord = false;
      from = start;
    } else {
      if (from === -1) from = gapStart;
      col += start - gapStart;
    }
    to = end;
    if (col + end - start > r.width) {
      // A word longer than a row (alone on it): cut as the word loop cuts it.
      out += segment.slice(from, start);
      from = -1;
      m.col = col;
      out += cutLongWord(r, m, segment.slice(start, end), end - start);
      col = m.col;
      rowHasWord = m.rowHasWord;
      continue;
    }
    col += end - start;
    rowHasWord = true;
    // The words after it that end within the row's room: placed at once, with the spaces between them.
    const limit = end + r.width - col;
    let fits = limit >= lastWordEnd ? lastWordEnd : segment.charCodeAt(limit) === 0x20 ? limit : segment.lastIndexOf(" ", limit);
    while (segment.charCodeAt(fits - 1) === 0x20) fits--;
    col += fits - end;
    to = fits;
  }
  if (from !== -1) out += segment.slice(from, to);
  m.col = col;
  m.rowHasWord = rowHasWord;
  m.spaces = segment.slice(to);
  emit(r, out, false);
}

/** A word wider than what is left of its row, cut into rows (each cut loses its columns): the text to write. */
function cutLongWord(r: RenderState, m: MessageState, word: string, width: number): string {
  let out = "";
  let rest = word;
  let restWidth = width;
  while (rest !== "" && m.col + restWidth > r.width) {
    const [head, tail] = splitAtWidth(rest, Math.max(r.width - m.col, 1));
    out += head + wrapText(m);
    rest = tail;
    restWidth -= displayWidth(head);
  }
  if (rest !== "") {
    out += rest;
    m.col += restWidth;
    m.rowHasWord = true;
  }
  return out;
}

/** The word loop of `writePlainSegment`, for any segment without tabs and escape sequences. */
function writeWordLoop(r: RenderState, m: MessageState, segment: string): void {
  const length = segment.length;
  let out = "";
  // segment[from, to) is output not yet in `out`: the words placed since the last break and the spaces between them.
  let from = -1;
  let to = -1;
  // Spaces owed before the next word: those carried in from before this segment (until its first word), then its own.
  let carried = m.spaces;
  let at = 0;
  while (at < length) {
    let gapStart = at;
    while (at < length && segment.charCodeAt(at) === 0x20) at++;
    if (at === length) break;
    const start = at;
    let ascii = true;
    for (; at < length; at++) {
      const c = segment.charCodeAt(at);
      if (c === 0x20) break;
      if (c < 0x20 || c >= 0x7f) ascii = false;
    }
    const width = ascii ? at - start : displayWidth(segment.slice(start, at));
    if (needsRowStart(r, m) || m.lineStart) {
      // At most once a segment (its first word): the general steps, with the spaces owed in `m.spaces` as they read them.
      m.spaces = carried + segment.slice(gapStart, start);
      if (needsRowStart(r, m)) {
        if (from !== -1) out += segment.slice(from, to);
        from = -1;
        emit(r, out, false);
        out = "";
        startRow(r, m);
      }
      takeHang(r, m);
      carried = m.spaces;
      gapStart = start;
    }
    const gap = carried.length + start - gapStart;
    if (m.rowHasWord && m.col + gap + width > r.width) {
      if (from !== -1) out += segment.slice(from, to);
      out += wrapText(m);
      from = start;
    } else {
      if (from === -1) {
        out += carried;
        from = gapStart;
      }
      m.col += gap;
    }
    carried = "";
    to = at;
    m.fresh = false;
    if (m.col + width <= r.width) {
      m.col += width;
      m.rowHasWord = true;
      continue;
    }
    // A word longer than a row: each cut loses its columns (as in writeWords).
    out += segment.slice(from, start);
    from = -1;
    out += cutLongWord(r, m, segment.slice(start, at), width);
  }
  if (from !== -1) out += segment.slice(from, to);
  m.spaces = carried + segment.slice(to === -1 ? 0 : to);
  emit(r, out, false);
}

const isBlank = (code: number): boolean => code === 0x20 || code === 0x09;

/**
 * The common case of `writeSegment` in one piece: inside a line, a segment with no escape sequence
 * whose words all fit on the open row is written as the word-by-word loop would write it (widths
 * add up character by character, so the whole measures what its words and spaces do). False when
 * it does not apply; nothing is written then.
 */
function writeFittingSegment(r: RenderState, m: MessageState, segment: string): boolean {
  if (m.lineStart || segment.includes("\x1b")) return false;
  let end = segment.length;
  while (end > 0 && isBlank(segment.charCodeAt(end - 1))) end--;
  if (end === 0) return false;
  startRow(r, m);
  const words = segment.slice(0, end);
  const body = m.spaces + (words.includes("\t") ? words.replace(/\t/g, "    ") : words);
  const width = visibleWidth(body);
  if (m.col + width > r.width) return false;
  emit(r, body);
  m.col += width;
  m.rowHasWord = true;
  const blanks = end === segment.length ? "" : segment.slice(end);
  m.spaces = blanks.includes("\t") ? blanks.replace(/\t/g, "    ") : blanks;
  m.fresh = false;
  return true;
}

export function indentOf(depth: number): string {
  return "  ".repeat(depth);
}

/** Agent text on one line: sanitised, newlines shown as pictures. */
export function oneLine(text: string): string {
  return sanitizeForTerminal(text, { keepNewlines: false });
}

/** Our styling for the mode (none in mode `none`). */
export function style(r: RenderState, role: Role, text: string): string {
  return paint(r.mode, role, text);
}
