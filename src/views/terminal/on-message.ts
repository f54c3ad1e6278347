/** Messages: deltas stream onto the open line; a completed message adds what was not streamed, or shows itself (prompts cut). */
import type { EventOf } from "../../model/events.ts";
import { endText, finishMessage, forgetMessage, messageState, rememberAnswer, streamText } from "./messages.ts";
import { closeLine, emitRows, indentOf, line, note, style } from "./screen.ts";
import { MIN_HIDDEN, type RenderState, USER_LINES, VERBOSE_HEAD, VERBOSE_TAIL } from "./state.ts";
import { hiddenSummary, trimBlankEnds } from "./tools.ts";

/** Text with something but white space in it (as `trim() !== ""`, without a trimmed copy of each message). */
const NOT_BLANK = /\S/;

export function onMessageStarted(r: RenderState, event: EventOf<"message.started">): void {
  messageState(r, event.messageId, event.role, event.kind, event);
}

export function onMessageDelta(r: RenderState, event: EventOf<"message.delta">): void {
  const m = r.messages.get(event.messageId) ?? messageState(r, event.messageId, "assistant", "text", event);
  if (!m.shown || event.text === "") return;
  m.parts.push(event.text);
  m.length += event.text.length;
  streamText(r, m, event.text);
}

export function onMessageCompleted(r: RenderState, event: EventOf<"message.completed">): void {
  const m = r.messages.get(event.messageId) ?? messageState(r, event.messageId, event.role, event.kind, event);
  if (event.kind === "redacted_reasoning") {
    forgetMessage(r, m);
    if (r.verbose) note(r, () => line(r, m.depth, style(r, "reasoning", "∴ (reasoning withheld by the provider)")));
    return;
  }
  if (!m.shown) {
    forgetMessage(r, m);
    return;
  }
  if (m.length > 0) {
    // Streamed: the completed text may add to it (never shown twice); a revision cannot be unsaid.
    const streamed = m.parts.length === 1 ? (m.parts[0] as string) : m.parts.join("");
    if (event.text.length > streamed.length && event.text.startsWith(streamed)) streamText(r, m, event.text.slice(streamed.length));
    finishMessage(r, m);
  } else if (NOT_BLANK.test(event.text)) {
    // Prompts and system text are cut (from the end) like tool output; answers and reasoning never are.
    const keep =
      m.role === "user" || m.role === "system" || m.role === "developer"
        ? r.uncut
          ? Infinity
          : r.verbose
            ? VERBOSE_HEAD + VERBOSE_TAIL
            : USER_LINES
        : Infinity;
    const all = keep === Infinity ? [] : trimBlankEnds(event.text.split("\n"));
    const hidden = all.length - keep;
    if (hidden >= MIN_HIDDEN) {
      streamText(r, m, all.slice(0, keep).join("\n"));
      endText(r, m);
      closeLine(r, m);
      emitRows(r, `${indentOf(m.depth)}  ${style(r, "meta", hiddenSummary(r, hidden, 0, r.width - indentOf(m.depth).length - 2))}\n`);
    } else streamText(r, m, event.text);
    finishMessage(r, m);
  } else forgetMessage(r, m);
  rememberAnswer(r, m, event.text, event);
}
