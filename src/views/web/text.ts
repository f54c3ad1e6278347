/**
 * Untrusted text on the page: made visible with the terminal's rules (controls as symbols, bidi
 * overrides and invisible characters as `<U+XXXX>`, escape sequences shown, colours dropped) and
 * then inserted as text. Long text shows its start and a "show all" button.
 */
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import { el } from "./dom.ts";

/** Multi-line untrusted text, every hidden character made visible (the same list the terminal shows). */
export function visible(text: string): string {
  return sanitizeForTerminal(text, { sgr: "drop" });
}

/** Characters of a one-line slot shown (a name, a path, a key argument); more is cut with "…". */
const LINE_CHARS = 2000;

/** One-line untrusted text (a tool name, a path, an argument): line breaks shown as ⏎, cut at LINE_CHARS. */
export function visibleLine(text: string): string {
  const cut = text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text;
  return sanitizeForTerminal(cut, { sgr: "drop", keepNewlines: false });
}

/**
 * A run of non-space characters this long is laid out by chromium's line breaker in time that grows with the
 * square of its length under `overflow-wrap: break-word` (400 KB: 0.5 s; a 5 MB base64 blob: minutes), and in
 * linear time when any position may break. Text holding one is shown with `word-break: break-all`.
 */
const LONG_RUN_CHARS = 1000;

/** Marks `box` to break anywhere when `text` holds a run of LONG_RUN_CHARS non-space characters. */
export function breakLongRuns(box: HTMLElement, text: string): void {
  if (hasLongRun(text)) box.classList.add("as-break-all");
}

/** Whether `text` holds LONG_RUN_CHARS non-space characters in a row (one pass; a regular expression could backtrack). */
function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    run = c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d ? 0 : run + 1;
    if (run >= LONG_RUN_CHARS) return true;
  }
  return false;
}

/** Lines and characters shown before "show all". */
const PREVIEW_LINES = 40;
const PREVIEW_CHARS = 6000;

/** How long text is shown: a preview and a button, or all of it. */
export interface LongTextOptions {
  /** Extra classes of the `<pre>` (`as-diff`, `as-error-text`). */
  readonly class?: string;
  /** Characters of this field left out of the export by its size cap (said under the text). */
  readonly omittedChars?: number;
  /** Builds the visible content for a text (a diff colours its lines); default: one text node. */
  readonly render?: (text: string, into: HTMLElement) => void;
}

/** A `<pre>` with the text's first lines and a "show all" button when there is more. */
export function longText(text: string, options: LongTextOptions = {}): HTMLElement {
  const clean = visible(text);
  const render = options.render ?? ((t: string, into: HTMLElement) => into.append(t));
  const pre = el("pre", { class: `as-pre${options.class === undefined ? "" : ` ${options.class}`}` });
  const box = el("div", { class: "as-long" }, [pre]);
  const preview = previewOf(clean);
  render(preview ?? clean, pre);
  if (preview !== undefined) {
    const lines = countLines(clean);
    const button = el("button", {
      class: "as-show-all",
      text: `show all (${lines} lines, ${formatSize(clean.length)})`,
      attrs: { type: "button" },
    });
    button.addEventListener("click", () => {
      pre.replaceChildren();
      breakLongRuns(pre, clean);
      render(clean, pre);
      button.remove();
    });
    box.append(button);
  }
  if (options.omittedChars !== undefined && options.omittedChars > 0)
    box.append(el("p", { class: "as-omitted", text: `… ${formatSize(options.omittedChars)} more not embedded in this file (size cap)` }));
  return box;
}

/** The start of `text` when it is longer than the preview, else undefined. */
function previewOf(text: string): string | undefined {
  let end = 0;
  for (let line = 0; line < PREVIEW_LINES; line++) {
    const next = text.indexOf("\n", end);
    if (next === -1) {
      end = text.length;
      break;
    }
    end = next + 1;
  }
  end = Math.min(end, PREVIEW_CHARS);
  return end >= text.length ? undefined : `${text.slice(0, end).replace(/\n$/, "")}\n…`;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

/** 812 B, 14.2 KB, 3.1 MB (characters counted as bytes: near enough for a label). */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
