/** Tool calls: the `→ Name  key argument` header, output behind a `│` gutter cut to the verbosity's budget, plans. */
import type { JsonValue, PlanItem } from "../../model/events.ts";
import { isJsonObject } from "../../model/lossless-integer.ts";
import type { Role } from "../shared/color.ts";
import { keyArgument } from "../shared/format.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import { cutToWidth, displayWidth } from "../shared/width.ts";
import { linkify } from "./messages.ts";
import { begin, emitRows, indentOf, oneLine, settle, style } from "./screen.ts";
import { MIN_HIDDEN, NORMAL_HEAD, NORMAL_TAIL, type RenderState, type ToolState, VERBOSE_HEAD, VERBOSE_TAIL } from "./state.ts";

export function showHeader(r: RenderState, tool: ToolState): void {
  if (tool.headerShown) return;
  tool.headerShown = true;
  if (tool.input === undefined && tool.inputParts.length > 0) {
    try {
      tool.input = JSON.parse(tool.inputParts.join("")) as JsonValue;
    } catch {
      tool.input = undefined;
    }
  }
  begin(r, "tools", tool.depth, `tool:${tool.id}`);
  emitRows(r, `${indentOf(tool.depth)}${toolLine(r, tool, "→")}\n`);
  const input = tool.input;
  const description = tool.description ?? (isJsonObject(input) && typeof input.description === "string" ? input.description : undefined);
  if (r.verbose && description !== undefined && description !== "" && !keyArgOf(r, tool).includes(description)) {
    emitRows(r, `${indentOf(tool.depth)}  ${style(r, "meta", `# ${oneLine(description)}`)}\n`);
  }
}

function keyArgOf(r: RenderState, tool: ToolState): string {
  const session = tool.sessionId === undefined ? undefined : r.sessions.get(tool.sessionId);
  return keyArgument(tool.input, session?.cwd, tool.kind);
}

/** `→ Name  key argument`, fitted to the width (cut in normal verbosity only). */
function toolLine(r: RenderState, tool: ToolState, mark: string): string {
  const name = oneLine(tool.name === "" ? "tool" : tool.name);
  let arg = oneLine(keyArgOf(r, tool));
  const room = r.width - indentOf(tool.depth).length - 2 - displayWidth(name) - 2;
  if (!r.verbose) arg = cutToWidth(arg, Math.max(room, 16)).text;
  else if (!r.uncut) arg = cutToWidth(arg, Math.max(room, 16) * 4).text;
  const markRole: Role = mark === "→" ? "toolMark" : "meta";
  return `${style(r, markRole, mark)} ${style(r, "tool", name)}${arg !== "" ? `  ${style(r, "arg", arg)}` : ""}`;
}

export function releaseHeaders(r: RenderState): void {
  if (r.waitingHeaders.length === 0) return;
  const waiting = r.waitingHeaders;
  r.waitingHeaders = [];
  for (const tool of waiting) showHeader(r, tool);
}

/**
 * Shows untrusted output under a tool: sanitised, each line behind a `│` gutter, cut to the
 * verbosity's budget with exactly one line saying what was hidden.
 */
export function showOutput(r: RenderState, depth: number, text: string, role: Role = "output", diff = false): void {
  const { lines: all, count } = outputLines(r, text);
  if (count === 0) return;
  const gutterOnly = `${indentOf(depth)}  ${style(r, "gutter", "│")}`;
  const indent = `${gutterOnly} `;
  const room = Math.max(r.width - indentOf(depth).length - 4, 16);
  const head = r.uncut ? Infinity : r.verbose ? VERBOSE_HEAD : NORMAL_HEAD;
  const tail = r.uncut ? 0 : r.verbose ? VERBOSE_TAIL : NORMAL_TAIL;
  const hidden = count - head - tail;
  const keepAll = r.uncut || hidden < MIN_HIDDEN;
  const shownLines = keepAll ? all : [...all.slice(0, head), "", ...all.slice(all.length - tail)];
  let cutLines = 0;
  const out: string[] = [];
  for (let i = 0; i < shownLines.length; i++) {
    if (!keepAll && i === head) {
      out.push("");
      continue;
    }
    let text = (shownLines[i] as string).trimEnd();
    if (!r.uncut) {
      const fitted = cutToWidth(text.replace(/\t/g, "    "), r.verbose ? room * 4 : room);
      if (fitted.cut) cutLines++;
      text = fitted.text;
    }
    const lineRole: Role = diff
      ? text.startsWith("+")
        ? "diffAdd"
        : text.startsWith("-")
          ? "diffDel"
          : text.startsWith("@@")
            ? "diffHunk"
            : role
      : role;
    out.push(text === "" ? gutterOnly : `${indent}${colorLine(r, lineRole, linkify(r, text))}`);
  }
  const summary = hiddenSummary(r, keepAll ? 0 : hidden, cutLines, room);
  if (!keepAll) out[head] = `${indent}${style(r, "meta", summary)}`;
  else if (summary !== "") out.push(`${indent}${style(r, "meta", summary)}`);
  emitRows(r, `${out.join("\n")}\n`);
}

/** A tool output's lines as `showOutput` shows them. */
export interface OutputLines {
  /** Every line, sanitised; or, when the output will be cut, its first and last lines that can be shown. */
  readonly lines: readonly string[];
  /** How many lines the output has (blank ones at either end left out). */
  readonly count: number;
}

/**
 * The output's lines, sanitised. When the output will be cut, only the lines that can be shown
 * are found and sanitised (a 10 MB tool result costs a count of its line breaks, not a split and
 * an escape-sequence scan); line numbers are the same either way, because sanitising never adds
 * or removes a line break.
 */
export function outputLines(r: RenderState, text: string): OutputLines {
  const head = r.verbose ? VERBOSE_HEAD : NORMAL_HEAD;
  const tail = r.verbose ? VERBOSE_TAIL : NORMAL_TAIL;
  // A short output is shown whole; one the reader cut to its ends says so (its marker stands where the cut starts).
  const short = text.length < 4096 && (r.cutMarker === undefined || !text.includes(r.cutMarker));
  if (r.uncut || short) return allLines(trimBlankEnds(sanitizeForTerminal(text, r.richText).split("\n")));
  const { start, end } = nonBlankSpan(text);
  const count = start < end ? countLines(text, start, end) : 0;
  if (count - head - tail < MIN_HIDDEN) {
    const raw = trimBlankEnds(text.split("\n"));
    return allLines(trimBlankEnds(sanitizeForTerminal(raw.join("\n"), r.richText).split("\n")));
  }
  const clean = (line: string): string => sanitizeForTerminal(line.endsWith("\r") ? line.slice(0, -1) : line, r.richText);
  const lines: string[] = [];
  for (let from = start, i = 0; i < head; i++) {
    const lineEnd = text.indexOf("\n", from);
    lines.push(clean(text.slice(from, lineEnd)));
    from = lineEnd + 1;
  }
  const last: string[] = [];
  for (let to = end, i = 0; i < tail; i++) {
    const lineStart = text.lastIndexOf("\n", to - 1) + 1;
    last.push(clean(text.slice(lineStart, to)));
    to = lineStart - 1;
  }
  for (let i = last.length - 1; i >= 0; i--) lines.push(last[i] as string);
  return { lines, count };
}

const allLines = (lines: string[]): OutputLines => ({ lines, count: lines.length });

/**
 * Where the lines of `text` that `trimBlankEnds` keeps start and end: from the start of the first line
 * that is not blank to the end of the last one (`start >= end` when every line is blank).
 */
function nonBlankSpan(text: string): { start: number; end: number } {
  let start = 0;
  for (;;) {
    const lineEnd = text.indexOf("\n", start);
    if (text.slice(start, lineEnd === -1 ? text.length : lineEnd).trim() !== "") break;
    if (lineEnd === -1) return { start: text.length, end: 0 };
    start = lineEnd + 1;
  }
  let end = text.length;
  for (;;) {
    const lineStart = end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1;
    if (text.slice(lineStart, end).trim() !== "") break;
    end = lineStart - 1;
  }
  return { start, end };
}

/** The number of lines in `text` from `start` to `end`: one more than its line breaks. */
function countLines(text: string, start: number, end: number): number {
  // A character loop, not indexOf per line: the lines between a cut output's ends are empty, one call each.
  let count = 1;
  for (let at = start; at < end; at++) if (text.charCodeAt(at) === 0x0a) count++;
  return count;
}

/** Our style around one line of untrusted text; kept SGR in it is reset at the end of the line. */
function colorLine(r: RenderState, role: Role, text: string): string {
  if (text.includes("\x1b[") && r.sgrPolicy === "keep") return `${style(r, role, text)}\x1b[0m`;
  return style(r, role, text);
}

/** The one line that says what was cut; the hint goes when it would not fit the row (`room` columns). */
export function hiddenSummary(r: RenderState, hiddenLines: number, cutLines: number, room = r.width): string {
  if (hiddenLines <= 0 && cutLines === 0) return "";
  const what = [
    hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? "" : "s"} hidden` : "",
    cutLines > 0 ? `${cutLines} long line${cutLines === 1 ? "" : "s"} cut` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const hinted = `… ${what} (${r.verbose ? "--full shows all" : "-v shows more, --full all"})`;
  return displayWidth(hinted) <= room ? hinted : `… ${what}`;
}

/** Before output of a tool whose header is not the last thing on screen: which call it belongs to. */
export function referTo(r: RenderState, tool: ToolState): void {
  if (r.lastItem === `tool:${tool.id}`) {
    settle(r);
    return;
  }
  begin(r, "tools", tool.depth, `tool:${tool.id}`);
  emitRows(r, `${indentOf(tool.depth)}${toolLine(r, tool, "↳")}\n`);
}

export function showPlan(r: RenderState, depth: number, items: readonly PlanItem[], previous: readonly PlanItem[] | undefined): void {
  const box = (item: PlanItem): string =>
    item.status === "completed" ? style(r, "ok", "☑") : item.status === "in_progress" ? style(r, "warning", "◐") : style(r, "meta", "☐");
  let shown = items;
  // Normal verbosity: once the list is known, show only the items that changed.
  if (!r.verbose && previous !== undefined && previous.length === items.length && previous.every((p, i) => p.text === items[i]?.text)) {
    shown = items.filter((item, i) => item.status !== previous[i]?.status);
    if (shown.length === 0) return;
  }
  for (const item of shown)
    emitRows(
      r,
      `${indentOf(depth)}  ${box(item)} ${item.status === "completed" ? style(r, "meta", oneLine(item.text)) : oneLine(item.text)}\n`,
    );
}

export function trimBlankEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === "") start++;
  while (end > start && (lines[end - 1] as string).trim() === "") end--;
  return start === 0 && end === lines.length ? lines : lines.slice(start, end);
}

/** A unified diff without its `---`/`+++` file header (the change line already names the file). */
export function stripDiffHeader(diff: string): string {
  return diff.replace(/^(?:---[^\n]*\n\+\+\+[^\n]*\n)/, "");
}
