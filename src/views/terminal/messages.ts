/**
 * Messages as they stream: sanitised deltas appended to the open line, prose wrapped at word
 * boundaries (a word near the row's end waits for the next delta), URLs made links in mode full.
 */
import type { AgentEvent, MessageKind, MessageRole } from "../../model/events.ts";
import { hyperlink } from "../shared/color.ts";
import { createSanitizer, safeHttpUrl } from "../shared/sanitize.ts";
import { visibleWidth } from "../shared/width.ts";
import { closeLine, indentOf, settle, startRow, writeSegment } from "./screen.ts";
import { answersEndWith, depthOf, ensureSession, keepAnswer, squeeze } from "./sessions.ts";
import { type MessageState, type RenderState, type SessionState, WORD_SLACK } from "./state.ts";

function isShown(r: RenderState, role: MessageRole, kind: MessageKind): boolean {
  if (kind === "redacted_reasoning") return false; // noted at completion in -v
  if (kind === "reasoning") return !r.quiet;
  if (role === "assistant") return true;
  if (role === "user") return !r.quiet;
  return r.verbose;
}

export function messageState(r: RenderState, id: string, role: MessageRole, kind: MessageKind, event: AgentEvent): MessageState {
  let m = r.messages.get(id);
  if (m === undefined) {
    m = {
      id,
      role,
      kind,
      depth: depthOf(r, event),
      sessionId: event.sessionId,
      shown: isShown(r, role, kind),
      sanitizer: createSanitizer(r.richText),
      parts: [],
      length: 0,
      started: false,
      fresh: true,
      newlines: 0,
      dirty: false,
      hold: "",
      wordHold: "",
      spaces: "",
      col: 0,
      rowHasWord: false,
      lineStart: true,
      hang: "",
    };
    r.messages.set(id, m);
  }
  return m;
}

/**
 * Appends sanitised text to message `m`: newlines become a line break plus the hanging indent
 * (written lazily, so no line ends in spaces); leading newlines and more than one blank line are
 * dropped. Prose is wrapped at word boundaries to the width, a wrapped row keeping the line's own
 * indent; `final` says no delta follows (a held word is written). O(length of the text).
 */
function appendText(r: RenderState, m: MessageState, text: string, final = false): void {
  const all = m.wordHold === "" ? text : m.wordHold + text;
  m.wordHold = "";
  let from = 0;
  while (from < all.length) {
    const nl = all.indexOf("\n", from);
    const end = nl === -1 ? all.length : nl;
    const segment = all.slice(from, end);
    if (nl === -1 && !final) writeTail(r, m, segment);
    else if (segment !== "") writeSegment(r, m, segment);
    if (nl === -1) break;
    if (!m.fresh) m.newlines++;
    m.spaces = "";
    m.lineStart = true;
    from = nl + 1;
  }
  if (m.sanitizer.takeStyled()) m.dirty = true;
}

/**
 * The end of a delta, whose last word may go on in the next one. It is written now when it has
 * room to grow on its row (the stream shows as it comes); near the row's end it waits for the
 * next delta, so the wrap falls between words. Every mode decides alike, so all show the same.
 */
function writeTail(r: RenderState, m: MessageState, segment: string): void {
  const cut = Math.max(segment.lastIndexOf(" "), segment.lastIndexOf("\t")) + 1;
  const word = segment.slice(cut);
  if (cut > 0) writeSegment(r, m, segment.slice(0, cut));
  if (word === "") return;
  startRow(r, m);
  const wordWidth = visibleWidth(word);
  const room = r.width - m.col - (m.rowHasWord ? m.spaces.length : 0);
  if (wordWidth + WORD_SLACK <= room || wordWidth >= r.width - indentOf(m.depth).length - 2) writeSegment(r, m, word);
  else m.wordHold = word;
}

export function streamText(r: RenderState, m: MessageState, raw: string): void {
  const text = m.sanitizer.write(raw);
  if (!r.links) appendText(r, m, text);
  else {
    const joined = m.hold + text;
    const cut = urlTailStart(joined);
    m.hold = joined.slice(cut);
    appendText(r, m, linkify(r, joined.slice(0, cut)));
  }
}

export function endText(r: RenderState, m: MessageState): void {
  const rest = m.sanitizer.end();
  if (!r.links) appendText(r, m, rest, true);
  else {
    const joined = m.hold + rest;
    m.hold = "";
    appendText(r, m, linkify(r, joined), true);
  }
}

/** Our OSC 8 around each well-formed http(s) URL of sanitised text (mode full; the URL stays the visible text). */
export function linkify(r: RenderState, text: string): string {
  if (!r.links || r.mode !== "full" || !text.includes("http")) return text;
  return text.replace(URL_IN_TEXT, (match) => {
    const trimmed = match.replace(/[.,;:!?)\]}'"]+$/, "");
    const url = safeHttpUrl(trimmed);
    return url === undefined ? match : hyperlink(r.mode, url) + match.slice(trimmed.length);
  });
}

/**
 * Drops a message's state and empties it: the Map may still reach the entry from a table it replaced (kept for
 * iterators) until a full collection, and an emptied state holds no text there.
 */
export function forgetMessage(r: RenderState, m: MessageState): void {
  r.messages.delete(m.id);
  m.parts.length = 0;
}

export function finishMessage(r: RenderState, m: MessageState): void {
  endText(r, m);
  if (r.current === m) closeLine(r, m);
  forgetMessage(r, m);
  if (r.current === undefined) settle(r);
}

export function rememberAnswer(r: RenderState, m: MessageState, text: string, event: AgentEvent): void {
  if (m.role !== "assistant" || m.kind !== "text") return;
  const session = ensureSession(r, event);
  keepAnswer(session, text);
}

export function showFinalAnswer(r: RenderState, text: string, session: SessionState | undefined, event: AgentEvent): void {
  const flat = squeeze(text);
  if (flat === "") return;
  // Agents repeat their last answer (or all of them, run together) as the final result: shown once.
  if (session !== undefined && answersEndWith(session, flat)) return;
  const m = messageState(r, `final:${event.seq}`, "assistant", "text", event);
  streamText(r, m, text);
  finishMessage(r, m);
  rememberAnswer(r, m, text, event);
}

/** A URL in sanitised text: no white space, quotes, angle brackets, ESC or control pictures. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`\x1b\u2400-\u2426]+/g;

/** Where the last word of `text` starts when it may be an unfinished http(s) URL, else `text.length`. */
function urlTailStart(text: string): number {
  const start = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\n"), text.lastIndexOf("\t")) + 1;
  const tail = text.slice(start);
  if (tail === "" || tail.length > 2048) return text.length;
  if (/^https?:\/\//.test(tail) || "https://".startsWith(tail) || "http://".startsWith(tail)) return start;
  return text.length;
}
