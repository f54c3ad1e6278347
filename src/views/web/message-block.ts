/**
 * Messages on the page: a prompt as plain text, an answer as safe Markdown, reasoning and system
 * text collapsed. While a message streams, its deltas extend a text node (cheap, in place); when it
 * completes, the whole text replaces them (rendered as Markdown for an answer).
 */
import type { MessageKind, MessageRole } from "../../model/events.ts";
import { createSanitizer, type TerminalSanitizer } from "../shared/sanitize.ts";
import { disclosure, el } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";
import { breakLongRuns, formatSize, longText } from "./text.ts";

/** A message on the page. */
export interface MessageBlock {
  readonly id: string;
  readonly role: MessageRole;
  readonly kind: MessageKind;
  readonly element: HTMLElement;
  /** Where the text goes. */
  readonly body: HTMLElement;
  /** The streamed text so far, as shown (made visible chunk by chunk). */
  streamed: Text | undefined;
  sanitizer: TerminalSanitizer | undefined;
  completed: boolean;
}

const LABELS: Record<MessageRole, string> = { user: "You", assistant: "Agent", system: "System", developer: "Developer" };

/** An empty block for a message, shaped by its role and kind. */
export function createMessageBlock(id: string, role: MessageRole, kind: MessageKind): MessageBlock {
  const body = el("div", { class: "as-message-body", attrs: { dir: "auto" } });
  let element: HTMLElement;
  if (kind !== "text") {
    const label = kind === "reasoning" ? "Reasoning" : "Reasoning (withheld by the provider)";
    element = disclosure("as-entry as-reasoning", [el("span", { class: "as-label", text: label })], [body]);
  } else if (role === "system" || role === "developer") {
    element = disclosure("as-entry as-system", [el("span", { class: "as-label", text: `${LABELS[role]} message` })], [body]);
  } else {
    element = el("article", { class: `as-entry as-message as-${role}` }, [el("div", { class: "as-label", text: LABELS[role] }), body]);
  }
  element.tabIndex = -1;
  element.dataset.role = role;
  return { id, role, kind, element, body, streamed: undefined, sanitizer: undefined, completed: false };
}

/** More streamed text. */
export function appendDelta(block: MessageBlock, text: string): void {
  if (block.completed) return;
  if (block.streamed === undefined) {
    block.streamed = document.createTextNode("");
    block.sanitizer = createSanitizer({ sgr: "drop" });
    block.body.replaceChildren(el("div", { class: "as-streaming" }, [block.streamed]));
  }
  block.streamed.appendData(block.sanitizer?.write(text) ?? "");
}

/** The whole text: Markdown for an answer, text for the rest. */
export function completeMessage(block: MessageBlock, text: string, omittedChars: number | undefined): void {
  block.completed = true;
  block.streamed = undefined;
  block.sanitizer = undefined;
  const omitted = omittedChars === undefined ? {} : { omittedChars };
  if (block.kind === "redacted_reasoning") {
    block.body.replaceChildren(el("p", { class: "as-meta", text: "the provider withheld this reasoning (only its signature was sent)" }));
    return;
  }
  if (block.kind === "text" && block.role === "assistant") {
    block.body.replaceChildren(markdownBlock(text));
    if (omittedChars !== undefined)
      block.body.append(el("p", { class: "as-omitted", text: `… ${formatSize(omittedChars)} more not embedded in this file (size cap)` }));
  } else {
    block.body.replaceChildren(longText(text, { class: "as-plain", ...omitted }));
  }
  const summary = block.element.querySelector("summary");
  if (summary !== null && text !== "") summary.append(el("span", { class: "as-meta", text: ` ${formatSize(text.length)}` }));
}

/** Answers longer than this show their start as Markdown and a "show all" button (laying out megabytes at once stalls a page). */
const PREVIEW_MARKDOWN_CHARS = 20_000;

/** An answer as Markdown: whole, or its start and a button that renders all of it. */
function markdownBlock(text: string): HTMLElement {
  const markdown = el("div", { class: "as-markdown" });
  if (text.length <= PREVIEW_MARKDOWN_CHARS) {
    renderMarkdown(text, markdown);
    return markdown;
  }
  renderMarkdown(`${text.slice(0, PREVIEW_MARKDOWN_CHARS)}…`, markdown);
  const button = el("button", { class: "as-show-all", text: `show all (${formatSize(text.length)})`, attrs: { type: "button" } });
  button.addEventListener("click", () => {
    breakLongRuns(markdown, text);
    renderMarkdown(text, markdown);
    button.remove();
  });
  return el("div", { class: "as-long" }, [markdown, button]);
}

/** A message that never completed (the input ended): its streamed text stays, shown like any long text. */
export function endMessage(block: MessageBlock): void {
  if (block.completed || block.streamed === undefined) return;
  const text = block.streamed.data + (block.sanitizer?.end() ?? "");
  block.streamed = undefined;
  block.sanitizer = undefined;
  block.body.replaceChildren(longText(text, { class: "as-plain" }));
}
