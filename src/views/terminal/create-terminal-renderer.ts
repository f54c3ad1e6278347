/**
 * The terminal view: any agent's events as a person would watch them. Append-only: no cursor
 * movement and no carriage-return rewrites, so it reads right in a terminal at any width, in a
 * pipe, a CI log, a file, or a console that strips ANSI. The first text of a message prints its
 * marker and the text, later deltas only their new suffix, completion one newline (the contract of
 * ../shared/docs/seed-origins-and-ralph-contract.md, "Rendering rules"). Never touches `process`:
 * output goes through `write`. Every piece of agent or tool text goes through the escape-sequence
 * sanitizer (../shared/sanitize.ts) before our own styling is put around it. docs/render.md describes the view.
 */
import { assertNever, isNoResult, type AgentEvent, type JsonValue, type MessageKind, type MessageRole, type PlanItem, type Usage } from "../../model/events.ts";
import { hyperlink, paint, sgrOf, type Role } from "../shared/color.ts";
import { diffStat, formatCost, formatCount, formatDuration, formatTime, formatUsage, keyArgument, relativePath } from "../shared/format.ts";
import { viewMetric } from "../shared/metric.ts";
import { createSanitizer, safeHttpUrl, sanitizeForTerminal, type SanitizeOptions, type TerminalSanitizer } from "../shared/sanitize.ts";
import type { RenderMode, Verbosity } from "../shared/types.ts";
import { cutToWidth, displayWidth, splitAtWidth, visibleWidth } from "../shared/width.ts";
import { wrapLine } from "../shared/wrap.ts";
import { isJsonObject } from "../../model/lossless-integer.ts";
import { stringifyRecord } from "../../framing/stringify-record.ts";

export type { RenderMode, Verbosity } from "../shared/types.ts";

export interface RendererOptions {
  /** Receives output text. Mode `full` writes at most once per `render` call; `basic` and `none` once per finished block. */
  write(text: string): void;
  /** `full` (a terminal: colour, attributes, text as it streams), `basic` (colour, one write per block) or `none` (no escape sequences). @defaultValue "none" */
  mode?: RenderMode;
  /** Terminal width in columns: one-line slots (tool arguments, cut output lines) are fitted to it. @defaultValue 80 */
  width?: number;
  /** How much to show. @defaultValue "normal" */
  verbosity?: Verbosity;
  /** Turn http(s) URLs into OSC 8 hyperlinks we build ourselves (mode `full` only; the URL is always the visible text). @defaultValue false */
  links?: boolean;
  /** Keep the colours (SGR only) of tool output, messages and text lines; every other sequence is still shown, not run. @defaultValue false */
  keepColors?: boolean;
}

export interface TerminalRenderer {
  /** Shows one event. */
  render(event: AgentEvent): void;
  /** Finishes an open line, says whether a session was left unfinished, and writes what is left. Call once. */
  end(): void;
}

/** Tool output lines shown in normal verbosity: this many from the start and from the end. */
const NORMAL_HEAD = 4;
const NORMAL_TAIL = 4;
const VERBOSE_HEAD = 20;
const VERBOSE_TAIL = 20;
/** Lines of a prompt (user message) shown in normal verbosity. */
const USER_LINES = 8;
/** Columns a streamed word may still grow by and stay on its row; nearer the row's end, its start waits for the next delta. */
const WORD_SLACK = 16;
/** Hide nothing unless at least this many lines would be hidden (a summary line must save rows). */
const MIN_HIDDEN = 3;
/** A run of heartbeats prints its first one, then again when the idle time passes each of these. */
const IDLE_STEPS_MS = [30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];

/** One streamed or complete message, while it is open. */
interface MessageState {
  readonly id: string;
  readonly role: MessageRole;
  readonly kind: MessageKind;
  readonly depth: number;
  readonly sessionId: string | undefined;
  readonly shown: boolean;
  readonly sanitizer: TerminalSanitizer;
  /** Raw text of the deltas, joined once at completion to compare with the final text. */
  readonly parts: string[];
  length: number;
  /** Something of it is on screen (its marker at least). */
  started: boolean;
  /** Nothing but the marker since it (re)started: leading newlines are dropped. */
  fresh: boolean;
  /** Newlines seen but not written yet: written before the next text, dropped at the end. */
  newlines: number;
  /** Kept SGR from the text is active: reset before the next line. */
  dirty: boolean;
  /** With `links`: the end of the text that may be the start of a URL, held until it is complete. */
  hold: string;
  /** The last word of the text so far, held until the next delta shows whether it is complete. */
  wordHold: string;
  /** Spaces seen but not written yet: written before the next word on the same row, dropped at a wrap. */
  spaces: string;
  /** Columns used on the current row. */
  col: number;
  /** The current row has a word on it (a word that does not fit goes to the next row). */
  rowHasWord: boolean;
  /** The next word is the first of a source line (its leading spaces become the hang). */
  lineStart: boolean;
  /** The source line's own indent, repeated on its wrapped rows. */
  hang: string;
}

interface ToolState {
  readonly id: string;
  name: string;
  readonly kind: string | undefined;
  readonly depth: number;
  readonly sessionId: string | undefined;
  input: JsonValue | undefined;
  readonly inputParts: string[];
  headerShown: boolean;
  description: string | undefined;
  progress: string[];
}

interface SessionState {
  readonly depth: number;
  /** The top session's working directory: paths under it are shown relative to it (the header names it). */
  readonly cwd: string | undefined;
  readonly root: boolean;
  /** Its session.started was seen (an unfinished one is reported at the end). */
  readonly started: boolean;
  completed: boolean;
  /** Every assistant answer shown in the session, without white space: the final answer is not shown again when it ends it. */
  answers: string;
  cumulative: Usage | undefined;
  deltaUsage: Usage | undefined;
  cost: number | undefined;
  plan: readonly PlanItem[] | undefined;
  /** The agent's latest estimate of its thinking tokens (a metric): shown in the footer. */
  thinkingTokens: number | undefined;
  /** Time the turns took, summed from timing metrics: the footer's duration when the result has none. */
  turnMs: number | undefined;
  /** Usage and cost the turns reported (OpenCode puts them on turn.completed only). */
  turnUsage: Usage | undefined;
  turnCost: number | undefined;
  turnsSeen: number;
}

type Group = "header" | "message" | "tools" | "text" | "footer";

/**
 * Creates a renderer; call `render` for each event and `end` once.
 * @example
 * const renderer = createTerminalRenderer({ write: (t) => process.stdout.write(t), mode: "full", width: process.stdout.columns });
 * for await (const event of readEvents(process.stdin)) renderer.render(event);
 * renderer.end();
 */
export function createTerminalRenderer(options: RendererOptions): TerminalRenderer {
  const mode: RenderMode = options.mode ?? "none";
  const verbosity: Verbosity = options.verbosity ?? "normal";
  const width = Math.max(20, Math.floor(options.width ?? 80));
  const quiet = verbosity === "quiet";
  const verbose = verbosity === "verbose" || verbosity === "full" || verbosity === "debug";
  const uncut = verbosity === "full" || verbosity === "debug";
  const links = options.links === true;
  const sgrPolicy: SanitizeOptions["sgr"] = options.keepColors === true ? (mode === "none" ? "drop" : "keep") : "visible";
  // An OSC 8 link in untrusted text shows its target as text; `linkify` then makes it ours.
  const linkOut = (url: string): string => `<${url}> `;
  /** Options for untrusted multi-line text that may keep its colours (tool output, messages, text lines). */
  const richText: SanitizeOptions = links ? { sgr: sgrPolicy, link: linkOut } : { sgr: sgrPolicy };
  const oneLine = (text: string): string => sanitizeForTerminal(text, { keepNewlines: false });
  const style = (role: Role, text: string): string => paint(mode, role, text);

  let pending: string[] = [];
  /** The cursor is at the start of a line (as far as our own output goes). */
  let atLineStart = true;
  let wroteAnything = false;
  /** In mode full, a message's style stays open across deltas; closed at every write, reopened after. */
  let openSgr = "";
  let sgrIsOpen = false;

  const messages = new Map<string, MessageState>();
  /** The message whose text ends the output so far (its line is open). */
  let current: MessageState | undefined;
  /** Notes that arrived while a message line was open: shown when it closes. */
  let deferred: (() => void)[] = [];
  /** Notes that arrived between a tool call and its result: shown after the result, so the two stay together. */
  let afterTool: (() => void)[] = [];
  const tools = new Map<string, ToolState>();
  /** Tool calls whose arguments are still streaming: their header waits for them, in order. */
  let waitingHeaders: ToolState[] = [];
  const sessions = new Map<string, SessionState>();
  let lastGroup: { group: Group; depth: number } | undefined;
  /** What the last lines on screen belong to (`tool:<id>`, `msg:<id>`, ...): decides whether a tool result needs a reference line. */
  let lastItem = "";
  let heartbeatRun: { printed: number } | undefined;
  /** Mode full: a live status line (heartbeats) is on the last row, without a newline. */
  let statusShown = false;
  /** The last error message shown: a turn or session end that repeats it word for word does not show it again. */
  let lastError = "";

  // ---------------------------------------------------------------- output primitives

  function emit(text: string): void {
    if (text === "") return;
    if (statusShown) {
      // The live status line is replaced, never kept: clear it before real output takes its row.
      pending.push("\r\x1b[2K");
      statusShown = false;
    }
    pending.push(text);
    atLineStart = text.endsWith("\n");
    wroteAnything = true;
  }

  /**
   * Whole lines (ending in a newline), each wrapped at word boundaries to the width: a wrapped
   * row keeps the line's indent plus two columns, so no row is wider than the terminal.
   */
  function emitRows(text: string): void {
    const body = text.endsWith("\n") ? text.slice(0, -1) : text;
    emit(`${body.split("\n").map((row) => wrapLine(row, width, 0, "  ")).join("\n")}${body === text ? "" : "\n"}`);
  }

  /** Writes what is pending. Mode full closes an open style first, so every write is self-contained. */
  function flush(): void {
    if (pending.length === 0) return;
    if (sgrIsOpen) {
      pending.push("\x1b[0m");
      sgrIsOpen = false;
    }
    const text = pending.length === 1 ? (pending[0] as string) : pending.join("");
    pending = [];
    options.write(text);
  }

  const indentOf = (depth: number): string => "  ".repeat(depth);

  /** Closes the open message line (if any) and shows the notes that waited for it. */
  function settle(): void {
    if (current !== undefined) closeLine(current);
    if (deferred.length > 0) {
      const notes = deferred;
      deferred = [];
      for (const note of notes) note();
    }
  }

  /** Starts a new item: closes an open line, and separates groups at the top level by one blank line. */
  function begin(group: Group, depth: number, item: string): void {
    settle();
    releaseAfterTool();
    heartbeatRun = undefined;
    if (depth === 0 && lastGroup !== undefined && (group === "message" || group === "footer" || lastGroup.group !== group || lastGroup.depth !== 0)) {
      if (!(group === "text" && lastGroup.group === "text")) emit("\n");
    }
    lastGroup = { group, depth };
    lastItem = item;
  }

  /** One whole line at `depth` (the text may hold newlines: later lines get `hang` after the indent). */
  function line(depth: number, text: string, hang = ""): void {
    settle();
    const indent = indentOf(depth);
    emitRows(`${indent}${text.includes("\n") ? text.split("\n").join(`\n${indent}${hang}`) : text}\n`);
  }

  /** A status line (rate limit, retry, progress): shown now, or after the open message line when one is open. */
  function note(show: () => void): void {
    if (current !== undefined) deferred.push(show);
    else show();
  }

  /** A side note (metric, notice, repair, unknown record): like `note`, and it also waits for the result of the tool call on screen. */
  function sideNote(show: () => void): void {
    if (current !== undefined) deferred.push(show);
    else if (lastItem.startsWith("tool:") && tools.get(lastItem.slice(5))?.headerShown === true) afterTool.push(show);
    else show();
  }

  /** Mode full: draws "◷ working… 45 s · Bash running" over the last row (the next real output clears it). */
  function showStatus(idleMs: number | undefined): void {
    if (!atLineStart) return;
    const running = [...tools.values()].filter((tool) => tool.depth === 0).map((tool) => tool.name);
    const parts = [`◷ working…${idleMs !== undefined && idleMs >= 1000 ? ` ${formatDuration(idleMs)}` : ""}`];
    if (running.length > 0) parts.push(`${running.slice(0, 3).join(", ")}${running.length > 3 ? ` +${running.length - 3}` : ""} running`);
    const text = cutToWidth(oneLine(parts.join(" · ")), width - 1).text;
    pending.push(`\r\x1b[2K${style("meta", text)}`);
    statusShown = true;
  }

  function releaseAfterTool(): void {
    if (afterTool.length === 0) return;
    const notes = afterTool;
    afterTool = [];
    for (const show of notes) show();
  }

  // ---------------------------------------------------------------- sessions

  function sessionOf(event: AgentEvent): SessionState | undefined {
    return event.sessionId === undefined ? undefined : sessions.get(event.sessionId);
  }
  function depthOf(event: AgentEvent): number {
    return sessionOf(event)?.depth ?? 0;
  }
  function cwdOf(event: AgentEvent): string | undefined {
    return sessionOf(event)?.cwd;
  }
  function newSession(depth: number, cwd: string | undefined, root: boolean, started: boolean): SessionState {
    return { depth, cwd, root, started, completed: false, answers: "", cumulative: undefined, deltaUsage: undefined, cost: undefined, plan: undefined, thinkingTokens: undefined, turnMs: undefined, turnUsage: undefined, turnCost: undefined, turnsSeen: 0 };
  }
  function ensureSession(event: AgentEvent): SessionState {
    const id = event.sessionId ?? "";
    let session = sessions.get(id);
    if (session === undefined) {
      session = newSession(0, undefined, true, false);
      sessions.set(id, session);
    }
    return session;
  }

  // ---------------------------------------------------------------- messages

  function markerOf(m: MessageState): string {
    if (m.kind !== "text") return style("reasoning", "∴");
    if (m.role === "user") return style("user", "›");
    if (m.role === "system" || m.role === "developer") return style("system", "»");
    return style("answerMark", "●");
  }
  function textRoleOf(m: MessageState): Role {
    if (m.kind !== "text") return "reasoning";
    if (m.role === "user") return "user";
    if (m.role === "system" || m.role === "developer") return "system";
    return "answer";
  }

  function isShown(role: MessageRole, kind: MessageKind): boolean {
    if (kind === "redacted_reasoning") return false; // noted at completion in -v
    if (kind === "reasoning") return !quiet;
    if (role === "assistant") return true;
    if (role === "user") return !quiet;
    return verbose;
  }

  function messageState(id: string, role: MessageRole, kind: MessageKind, event: AgentEvent): MessageState {
    let m = messages.get(id);
    if (m === undefined) {
      m = {
        id,
        role,
        kind,
        depth: depthOf(event),
        sessionId: event.sessionId,
        shown: isShown(role, kind),
        sanitizer: createSanitizer(richText),
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
      messages.set(id, m);
    }
    return m;
  }

  /** Makes `m` the open line: its marker on a new line (a continuation when it was interrupted). */
  function enter(m: MessageState): void {
    if (current === m) {
      if (mode === "full" && !sgrIsOpen && openSgr !== "") {
        emit(`\x1b[${openSgr}m`);
        sgrIsOpen = true;
      }
      return;
    }
    begin("message", m.depth, `msg:${m.id}`);
    emit(`${indentOf(m.depth)}${markerOf(m)} `);
    m.col = indentOf(m.depth).length + 2;
    m.rowHasWord = false;
    m.started = true;
    m.fresh = true;
    m.newlines = 0;
    current = m;
    openSgr = sgrOf(mode, textRoleOf(m));
    if (openSgr !== "") {
      emit(`\x1b[${openSgr}m`);
      sgrIsOpen = true;
    }
  }

  /** Ends `m`'s line: resets its style and writes one newline. */
  function closeLine(m: MessageState): void {
    if (m.wordHold !== "" && current === m) {
      // The line ends here (the message is done or something interrupts it): its held word goes first.
      const word = m.wordHold;
      m.wordHold = "";
      writeSegment(m, word);
    }
    if (sgrIsOpen || m.dirty) {
      emit("\x1b[0m");
      sgrIsOpen = false;
    }
    m.dirty = false;
    if (!atLineStart) emit("\n");
    m.newlines = 0;
    if (current === m) current = undefined;
    openSgr = "";
  }

  /**
   * Appends sanitised text to message `m`: newlines become a line break plus the hanging indent
   * (written lazily, so no line ends in spaces); leading newlines and more than one blank line are
   * dropped. Prose is wrapped at word boundaries to the width, a wrapped row keeping the line's own
   * indent; `final` says no delta follows (a held word is written). O(length of the text).
   */
  function appendText(m: MessageState, text: string, final = false): void {
    const all = m.wordHold === "" ? text : m.wordHold + text;
    m.wordHold = "";
    let from = 0;
    while (from < all.length) {
      const nl = all.indexOf("\n", from);
      const end = nl === -1 ? all.length : nl;
      const segment = all.slice(from, end);
      if (nl === -1 && !final) writeTail(m, segment);
      else if (segment !== "") writeSegment(m, segment);
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
  function writeTail(m: MessageState, segment: string): void {
    const cut = Math.max(segment.lastIndexOf(" "), segment.lastIndexOf("\t")) + 1;
    const word = segment.slice(cut);
    if (cut > 0) writeSegment(m, segment.slice(0, cut));
    if (word === "") return;
    startRow(m);
    const wordWidth = visibleWidth(word);
    const room = width - m.col - (m.rowHasWord ? m.spaces.length : 0);
    if (wordWidth + WORD_SLACK <= room || wordWidth >= width - indentOf(m.depth).length - 2) writeSegment(m, word);
    else m.wordHold = word;
  }

  /** Puts `m`'s line on screen and writes the line breaks it owes, before its next word. */
  function startRow(m: MessageState): void {
    if (current !== m) enter(m);
    else if (mode === "full" && !sgrIsOpen && openSgr !== "") enter(m);
    if (m.newlines > 0) {
      const breaks = Math.min(m.newlines, 2);
      m.newlines = 0;
      if (m.dirty) {
        emit("\x1b[0m");
        m.dirty = false;
        sgrIsOpen = false;
      }
      emit(`${"\n".repeat(breaks)}${indentOf(m.depth)}  `);
      m.col = indentOf(m.depth).length + 2;
      m.rowHasWord = false;
      if (openSgr !== "" && !sgrIsOpen) {
        emit(`\x1b[${openSgr}m`);
        sgrIsOpen = true;
      }
    }
  }

  /** A wrapped row: a line break, the message's indent and the line's own. */
  function wrapRow(m: MessageState): void {
    emit(`\n${indentOf(m.depth)}  ${m.hang}`);
    m.col = indentOf(m.depth).length + 2 + m.hang.length;
    m.rowHasWord = false;
  }

  /** Writes part of one line of `m` word by word; spaces wait for the word after them (none end a row). */
  function writeSegment(m: MessageState, segment: string): void {
    for (const token of segment.match(/[ \t]+|[^ \t]+/g) ?? []) {
      if (token.charCodeAt(0) === 0x20 || token.charCodeAt(0) === 0x09) {
        m.spaces += token.replace(/\t/g, "    ");
        continue;
      }
      startRow(m);
      if (m.lineStart) {
        // The line's own indent (a nested list, indented code) is kept on its wrapped rows, up to half the row.
        const base = indentOf(m.depth).length + 2;
        m.hang = m.spaces.length < (width - base) / 2 ? m.spaces : "";
        m.lineStart = false;
      }
      let word = token;
      const gap = m.spaces.length;
      if (m.rowHasWord && m.col + gap + visibleWidth(word) > width) wrapRow(m);
      else if (gap > 0) {
        emit(m.spaces);
        m.col += gap;
      }
      m.spaces = "";
      while (m.col + visibleWidth(word) > width) {
        const [head, tail] = splitAtWidth(word, Math.max(width - m.col, 1));
        emit(head);
        wrapRow(m);
        word = tail;
      }
      if (word !== "") {
        emit(word);
        m.col += visibleWidth(word);
        m.rowHasWord = true;
      }
      m.fresh = false;
    }
  }

  function streamText(m: MessageState, raw: string): void {
    const text = m.sanitizer.write(raw);
    if (!links) appendText(m, text);
    else {
      const joined = m.hold + text;
      const cut = urlTailStart(joined);
      m.hold = joined.slice(cut);
      appendText(m, linkify(joined.slice(0, cut)));
    }
  }

  function endText(m: MessageState): void {
    const rest = m.sanitizer.end();
    if (!links) appendText(m, rest, true);
    else {
      const joined = m.hold + rest;
      m.hold = "";
      appendText(m, linkify(joined), true);
    }
  }

  /** Our OSC 8 around each well-formed http(s) URL of sanitised text (mode full; the URL stays the visible text). */
  function linkify(text: string): string {
    if (!links || mode !== "full" || !text.includes("http")) return text;
    return text.replace(URL_IN_TEXT, (match) => {
      const trimmed = match.replace(/[.,;:!?)\]}'"]+$/, "");
      const url = safeHttpUrl(trimmed);
      return url === undefined ? match : hyperlink(mode, url) + match.slice(trimmed.length);
    });
  }

  function finishMessage(m: MessageState): void {
    endText(m);
    if (current === m) closeLine(m);
    messages.delete(m.id);
    if (current === undefined) settle();
  }

  function rememberAnswer(m: MessageState, text: string, event: AgentEvent): void {
    if (m.role !== "assistant" || m.kind !== "text") return;
    const session = ensureSession(event);
    session.answers += squeeze(text);
  }

  // ---------------------------------------------------------------- tools

  function showHeader(tool: ToolState): void {
    if (tool.headerShown) return;
    tool.headerShown = true;
    if (tool.input === undefined && tool.inputParts.length > 0) {
      try {
        tool.input = JSON.parse(tool.inputParts.join("")) as JsonValue;
      } catch {
        tool.input = undefined;
      }
    }
    begin("tools", tool.depth, `tool:${tool.id}`);
    emitRows(`${indentOf(tool.depth)}${toolLine(tool, "→")}\n`);
    const input = tool.input;
    const description = tool.description ?? (isJsonObject(input) && typeof input.description === "string" ? input.description : undefined);
    if (verbose && description !== undefined && description !== "" && !keyArgOf(tool).includes(description)) {
      emitRows(`${indentOf(tool.depth)}  ${style("meta", `# ${oneLine(description)}`)}\n`);
    }
  }

  function keyArgOf(tool: ToolState): string {
    const session = tool.sessionId === undefined ? undefined : sessions.get(tool.sessionId);
    return keyArgument(tool.input, session?.cwd, tool.kind);
  }

  /** `→ Name  key argument`, fitted to the width (cut in normal verbosity only). */
  function toolLine(tool: ToolState, mark: string): string {
    const name = oneLine(tool.name === "" ? "tool" : tool.name);
    let arg = oneLine(keyArgOf(tool));
    const room = width - indentOf(tool.depth).length - 2 - displayWidth(name) - 2;
    if (!verbose) arg = cutToWidth(arg, Math.max(room, 16)).text;
    else if (!uncut) arg = cutToWidth(arg, Math.max(room, 16) * 4).text;
    const markRole: Role = mark === "→" ? "toolMark" : "meta";
    return `${style(markRole, mark)} ${style("tool", name)}${arg !== "" ? `  ${style("arg", arg)}` : ""}`;
  }

  function releaseHeaders(): void {
    if (waitingHeaders.length === 0) return;
    const waiting = waitingHeaders;
    waitingHeaders = [];
    for (const tool of waiting) showHeader(tool);
  }

  /**
   * Shows untrusted output under a tool: sanitised, each line behind a `│` gutter, cut to the
   * verbosity's budget with exactly one line saying what was hidden.
   */
  function showOutput(depth: number, text: string, role: Role = "output", diff = false): void {
    const all = outputLines(text);
    if (all.length === 0) return;
    const gutterOnly = `${indentOf(depth)}  ${style("gutter", "│")}`;
    const indent = `${gutterOnly} `;
    const room = Math.max(width - indentOf(depth).length - 4, 16);
    const head = uncut ? Infinity : verbose ? VERBOSE_HEAD : NORMAL_HEAD;
    const tail = uncut ? 0 : verbose ? VERBOSE_TAIL : NORMAL_TAIL;
    const hidden = all.length - head - tail;
    const keepAll = uncut || hidden < MIN_HIDDEN;
    const shownLines = keepAll ? all : [...all.slice(0, head), "", ...all.slice(all.length - tail)];
    let cutLines = 0;
    const out: string[] = [];
    for (let i = 0; i < shownLines.length; i++) {
      if (!keepAll && i === head) {
        out.push("");
        continue;
      }
      let text = (shownLines[i] as string).trimEnd();
      if (!uncut) {
        const fitted = cutToWidth(text.replace(/\t/g, "    "), verbose ? room * 4 : room);
        if (fitted.cut) cutLines++;
        text = fitted.text;
      }
      const lineRole: Role = diff ? (text.startsWith("+") ? "diffAdd" : text.startsWith("-") ? "diffDel" : text.startsWith("@@") ? "diffHunk" : role) : role;
      out.push(text === "" ? gutterOnly : `${indent}${colorLine(lineRole, linkify(text))}`);
    }
    const summary = hiddenSummary(keepAll ? 0 : hidden, cutLines, room);
    if (!keepAll) out[head] = `${indent}${style("meta", summary)}`;
    else if (summary !== "") out.push(`${indent}${style("meta", summary)}`);
    emitRows(`${out.join("\n")}\n`);
  }

  /**
   * The output's lines, sanitised. When the output will be cut, only the lines that can be shown
   * are sanitised (a 10 MB tool result costs a split, not a full escape-sequence scan); line
   * numbers are the same either way, because sanitising never adds or removes a line break.
   */
  function outputLines(text: string): string[] {
    const head = verbose ? VERBOSE_HEAD : NORMAL_HEAD;
    const tail = verbose ? VERBOSE_TAIL : NORMAL_TAIL;
    if (uncut || text.length < 4096) return trimBlankEnds(sanitizeForTerminal(text, richText).split("\n"));
    const raw = trimBlankEnds(text.split("\n"));
    if (raw.length - head - tail < MIN_HIDDEN) return trimBlankEnds(sanitizeForTerminal(raw.join("\n"), richText).split("\n"));
    const clean = (line: string): string => sanitizeForTerminal(line.endsWith("\r") ? line.slice(0, -1) : line, richText);
    const lines: string[] = new Array<string>(raw.length);
    for (let i = 0; i < raw.length; i++) lines[i] = i < head || i >= raw.length - tail ? clean(raw[i] as string) : "";
    return lines;
  }

  /** Our style around one line of untrusted text; kept SGR in it is reset at the end of the line. */
  function colorLine(role: Role, text: string): string {
    if (text.includes("\x1b[") && sgrPolicy === "keep") return `${style(role, text)}\x1b[0m`;
    return style(role, text);
  }

  /** The one line that says what was cut; the hint goes when it would not fit the row (`room` columns). */
  function hiddenSummary(hiddenLines: number, cutLines: number, room = width): string {
    if (hiddenLines <= 0 && cutLines === 0) return "";
    const what = [hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? "" : "s"} hidden` : "", cutLines > 0 ? `${cutLines} long line${cutLines === 1 ? "" : "s"} cut` : ""].filter(Boolean).join(", ");
    const hinted = `… ${what} (${verbose ? "--full shows all" : "-v shows more, --full all"})`;
    return displayWidth(hinted) <= room ? hinted : `… ${what}`;
  }

  /** Before output of a tool whose header is not the last thing on screen: which call it belongs to. */
  function referTo(tool: ToolState): void {
    if (lastItem === `tool:${tool.id}`) {
      settle();
      return;
    }
    begin("tools", tool.depth, `tool:${tool.id}`);
    emitRows(`${indentOf(tool.depth)}${toolLine(tool, "↳")}\n`);
  }

  // ---------------------------------------------------------------- the rest

  /** What the session reported besides its result: cumulative usage, else deltas and turns added up (as `summary` folds them). */
  function usageFallback(session: SessionState | undefined): Usage | undefined {
    if (session === undefined) return undefined;
    if (session.cumulative !== undefined) return session.cumulative;
    if (session.deltaUsage === undefined) return session.turnUsage;
    return session.turnUsage === undefined ? session.deltaUsage : addUsage(session.turnUsage, session.deltaUsage);
  }

  function costFallback(session: SessionState | undefined): number | undefined {
    if (session === undefined || (session.cost === undefined && session.turnCost === undefined)) return undefined;
    return (session.cost ?? 0) + (session.turnCost ?? 0);
  }

  function footer(event: Extract<AgentEvent, { type: "session.completed" }>, session: SessionState | undefined): void {
    const depth = session?.depth ?? 0;
    const child = session !== undefined && !session.root;
    const usage = event.usage !== undefined && formatUsage(event.usage) !== "" ? event.usage : usageFallback(session);
    const cost = event.costUsd ?? costFallback(session);
    const durationMs = event.durationMs ?? session?.turnMs;
    const turns = event.turns ?? (session !== undefined && session.turnsSeen > 1 ? session.turnsSeen : undefined);
    const thinking = session?.thinkingTokens;
    const [mark, word, role]: [string, string, Role] =
      event.status === "success" ? ["✓", child ? "subagent done" : "done", "ok"] : event.status === "interrupted" ? ["◼", child ? "subagent interrupted" : "interrupted", "warning"] : ["✗", child ? "subagent failed" : "failed", "error"];
    const parts = [
      durationMs !== undefined ? formatDuration(durationMs) : "",
      turns !== undefined ? `${turns} turn${turns === 1 ? "" : "s"}` : "",
      usage !== undefined ? formatUsage(usage) : "",
      thinking !== undefined && (usage === undefined || !(usage.reasoningTokens !== null && usage.reasoningTokens > 0)) ? `~${formatCount(thinking)} thinking` : "",
      cost !== undefined ? formatCost(cost) : "",
    ].filter(Boolean);
    begin(child ? "tools" : "footer", depth, "footer");
    const head = `${indentOf(depth)}${style(role === "ok" ? "okStrong" : role, `${mark} ${word}`)}`;
    const oneRow = `${indentOf(depth)}${mark} ${word} · ${parts.join(" · ")}`;
    if (parts.length === 0) emitRows(`${head}\n`);
    else if (displayWidth(oneRow) <= width || usage === undefined || formatUsage(usage) === "") emitRows(`${head}${style("meta", ` · ${parts.join(" · ")}`)}\n`);
    else {
      // Too wide for one row: the token counts go on a second line instead of wrapping mid-phrase.
      const tokens = formatUsage(usage);
      const rest = parts.filter((p) => p !== tokens);
      emitRows(`${head}${rest.length > 0 ? style("meta", ` · ${rest.join(" · ")}`) : ""}\n${indentOf(depth)}  ${style("meta", tokens)}\n`);
    }
    if (event.error !== undefined && event.error !== "" && event.status !== "success" && squeeze(event.error) !== lastError) {
      const reason = sanitizeForTerminal(event.error, { sgr: "visible" });
      emitRows(`${indentOf(depth)}  ${style("error", reason.split("\n").join(`\n${indentOf(depth)}  `))}\n`);
    }
  }

  function showFinalAnswer(text: string, session: SessionState | undefined, event: AgentEvent): void {
    const flat = squeeze(text);
    if (flat === "") return;
    // Agents repeat their last answer (or all of them, run together) as the final result: shown once.
    if (session !== undefined && session.answers.endsWith(flat)) return;
    const m = messageState(`final:${event.seq}`, "assistant", "text", event);
    streamText(m, text);
    finishMessage(m);
    rememberAnswer(m, text, event);
  }

  function showPlan(depth: number, items: readonly PlanItem[], previous: readonly PlanItem[] | undefined): void {
    const box = (item: PlanItem): string => (item.status === "completed" ? style("ok", "☑") : item.status === "in_progress" ? style("warning", "◐") : style("meta", "☐"));
    let shown = items;
    // Normal verbosity: once the list is known, show only the items that changed.
    if (!verbose && previous !== undefined && previous.length === items.length && previous.every((p, i) => p.text === items[i]?.text)) {
      shown = items.filter((item, i) => item.status !== previous[i]?.status);
      if (shown.length === 0) return;
    }
    for (const item of shown) emitRows(`${indentOf(depth)}  ${box(item)} ${item.status === "completed" ? style("meta", oneLine(item.text)) : oneLine(item.text)}\n`);
  }

  function debugLine(event: AgentEvent): void {
    const json = sanitizeForTerminal(stringifyRecord(event), { keepNewlines: false });
    emit(`${style("meta", `#${event.seq}`)} ${style("tool", event.type)} ${json}\n`);
  }

  function renderEvent(event: AgentEvent): void {
    if (verbosity === "debug") {
      debugLine(event);
      return;
    }
    if (waitingHeaders.length > 0 && !(event.type === "tool.input.delta" && waitingHeaders.some((t) => t.id === event.toolCallId))) releaseHeaders();
    switch (event.type) {
      case "session.started": {
        const parent = event.parentSessionId !== undefined ? sessions.get(event.parentSessionId) : undefined;
        const isChild = event.parentSessionId !== undefined || event.parentToolCallId !== undefined;
        const depth = isChild ? (parent?.depth ?? 0) + 1 : 0;
        const cwd = isChild ? parent?.cwd : event.cwd;
        sessions.set(event.sessionId ?? "", newSession(depth, cwd, !isChild, true));
        const about = [event.agentVersion !== undefined ? `${event.agent ?? "agent"} ${event.agentVersion}` : event.agent, event.model, !isChild ? event.cwd : undefined].filter((s): s is string => s !== undefined && s !== "");
        if (isChild) {
          begin("tools", depth, `session:${event.sessionId ?? ""}`);
          emitRows(`${indentOf(depth)}${style("meta", `◇ subagent${about.length > 0 ? ` · ${oneLine(about.join(" · "))}` : ""}`)}\n`);
        } else {
          begin("header", 0, `session:${event.sessionId ?? ""}`);
          const [first, ...rest] = about.length > 0 ? about : ["session"];
          emitRows(`${style("header", `◆ ${oneLine(first as string)}`)}${rest.length > 0 ? style("meta", ` · ${oneLine(rest.join(" · "))}`) : ""}\n`);
          if (verbose) {
            const details = [event.sessionId !== undefined ? `session ${event.sessionId}` : "", event.tools !== undefined ? `${event.tools.length} tools` : "", event.permissionMode ?? ""].filter(Boolean);
            if (details.length > 0) emitRows(`  ${style("meta", oneLine(details.join(" · ")))}\n`);
          }
        }
        break;
      }
      case "session.completed": {
        const session = ensureSession(event);
        session.completed = true;
        if (event.finalText !== undefined && event.finalText !== "" && event.status === "success") showFinalAnswer(event.finalText, session, event);
        footer(event, session);
        break;
      }
      case "turn.started":
        break;
      case "turn.completed": {
        const session = sessionOf(event) ?? ensureSession(event);
        session.turnsSeen++;
        if (event.usage !== undefined) session.turnUsage = addUsage(session.turnUsage, event.usage);
        if (event.costUsd !== undefined) session.turnCost = (session.turnCost ?? 0) + event.costUsd;
        if (event.status === "error") {
          const repeated = event.error !== undefined && squeeze(event.error) === lastError;
          line(depthOf(event), style("error", `✗ turn failed${event.error !== undefined && !repeated ? `: ${sanitizeForTerminal(event.error)}` : ""}`), "  ");
          if (event.error !== undefined) lastError = squeeze(event.error);
        }
        break;
      }
      case "message.started":
        messageState(event.messageId, event.role, event.kind, event);
        break;
      case "message.delta": {
        const m = messages.get(event.messageId) ?? messageState(event.messageId, "assistant", "text", event);
        if (!m.shown || event.text === "") break;
        m.parts.push(event.text);
        m.length += event.text.length;
        streamText(m, event.text);
        break;
      }
      case "message.completed": {
        const m = messages.get(event.messageId) ?? messageState(event.messageId, event.role, event.kind, event);
        if (event.kind === "redacted_reasoning") {
          messages.delete(m.id);
          if (verbose) note(() => line(m.depth, style("reasoning", "∴ (reasoning withheld by the provider)")));
          break;
        }
        if (!m.shown) {
          messages.delete(m.id);
          break;
        }
        if (m.length > 0) {
          // Streamed: the completed text may add to it (never shown twice); a revision cannot be unsaid.
          const streamed = m.parts.length === 1 ? (m.parts[0] as string) : m.parts.join("");
          if (event.text.length > streamed.length && event.text.startsWith(streamed)) streamText(m, event.text.slice(streamed.length));
          finishMessage(m);
        } else if (event.text.trim() !== "") {
          // Prompts and system text are cut (from the end) like tool output; answers and reasoning never are.
          const keep = m.role === "user" || m.role === "system" || m.role === "developer" ? (uncut ? Infinity : verbose ? VERBOSE_HEAD + VERBOSE_TAIL : USER_LINES) : Infinity;
          const all = keep === Infinity ? [] : trimBlankEnds(event.text.split("\n"));
          const hidden = all.length - keep;
          if (hidden >= MIN_HIDDEN) {
            streamText(m, all.slice(0, keep).join("\n"));
            endText(m);
            closeLine(m);
            emitRows(`${indentOf(m.depth)}  ${style("meta", hiddenSummary(hidden, 0, width - indentOf(m.depth).length - 2))}\n`);
          } else streamText(m, event.text);
          finishMessage(m);
        } else messages.delete(m.id);
        rememberAnswer(m, event.text, event);
        break;
      }
      case "tool.started": {
        const tool: ToolState = {
          id: event.toolCallId,
          name: event.name,
          kind: event.kind,
          depth: depthOf(event),
          sessionId: event.sessionId,
          input: event.input,
          inputParts: [],
          headerShown: false,
          description: event.description,
          progress: [],
        };
        tools.set(event.toolCallId, tool);
        if (event.input === undefined) waitingHeaders.push(tool);
        else showHeader(tool);
        break;
      }
      case "tool.input.delta": {
        const tool = tools.get(event.toolCallId);
        if (tool !== undefined && !tool.headerShown) tool.inputParts.push(event.text);
        break;
      }
      case "tool.progress": {
        const tool = tools.get(event.toolCallId);
        if (tool !== undefined && event.output !== undefined) tool.progress.push(event.output);
        if (verbose && event.status !== undefined && event.status !== "") {
          const depth = (tool?.depth ?? depthOf(event)) + 1;
          note(() => line(depth, style("meta", `⋯ ${oneLine(event.status ?? "")}${event.elapsedMs !== undefined ? ` · ${formatDuration(event.elapsedMs)}` : ""}`)));
        }
        break;
      }
      case "tool.completed": {
        let tool = tools.get(event.toolCallId);
        if (tool === undefined) {
          tool = { id: event.toolCallId, name: event.name ?? "tool", kind: undefined, depth: depthOf(event), sessionId: event.sessionId, input: undefined, inputParts: [], headerShown: true, description: undefined, progress: [] };
        } else if (!tool.headerShown) showHeader(tool);
        tools.delete(event.toolCallId);
        if (isNoResult(event)) {
          // The input ended with the call still open: it did not fail, it has no result.
          referTo(tool);
          emitRows(`${indentOf(tool.depth)}  ${style("meta", "◌ no result")}\n`);
          releaseAfterTool();
          break;
        }
        const output = event.output ?? (event.result !== undefined && event.result !== null ? (typeof event.result === "string" ? event.result : stringifyRecord(event.result, 2)) : tool.progress.join(""));
        const boilerplate = tool.kind === "file_edit" || tool.kind === "file_write" || tool.kind === "todo";
        const showText = output.trim() !== "" && (event.isError ? !quiet : verbose || (!quiet && !boilerplate));
        if (!showText && !event.isError) {
          releaseAfterTool();
          break;
        }
        referTo(tool);
        if (showText) showOutput(tool.depth, output, event.isError ? "error" : "output");
        if (event.isError) {
          const status = [event.exitCode !== undefined ? `exit ${event.exitCode}` : "failed", event.durationMs !== undefined ? formatDuration(event.durationMs) : ""].filter(Boolean).join(" · ");
          emitRows(`${indentOf(tool.depth)}  ${style("error", `✗ ${status}`)}\n`);
        }
        releaseAfterTool();
        break;
      }
      case "file.changed": {
        if (quiet) break;
        const tool = event.toolCallId !== undefined ? tools.get(event.toolCallId) : undefined;
        const depth = tool?.depth ?? depthOf(event);
        const cwd = cwdOf(event);
        if (lastItem !== `tool:${event.toolCallId ?? ""}` || event.toolCallId === undefined) begin("tools", depth, `tool:${event.toolCallId ?? `files:${event.seq}`}`);
        else settle();
        for (const change of event.changes) {
          const stat = change.diff !== undefined ? diffStat(change.diff) : undefined;
          const target = change.kind === "rename" && change.newPath !== undefined ? `${relativePath(change.path, cwd)} → ${relativePath(change.newPath, cwd)}` : relativePath(change.path, cwd);
          const counts = stat !== undefined ? ` ${style("diffAdd", `+${stat.added}`)} ${style("diffDel", `−${stat.removed}`)}` : "";
          const failed = event.status === "error" ? style("error", " (failed)") : "";
          emitRows(`${indentOf(depth)}  ${style("toolMark", "✎")} ${change.kind} ${style("arg", oneLine(target))}${counts}${failed}\n`);
          if (change.diff !== undefined && change.diff.trim() !== "") showOutput(depth + 1, stripDiffHeader(change.diff), "output", true);
        }
        break;
      }
      case "plan.updated": {
        const session = sessionOf(event) ?? ensureSession(event);
        const previous = session.plan;
        session.plan = event.items;
        if (quiet) break;
        const depth = depthOf(event);
        if (lastItem.startsWith("tool:") && lastGroup?.depth === depth) settle();
        else begin("tools", depth, `plan:${event.seq}`);
        showPlan(depth, event.items, previous);
        break;
      }
      case "usage": {
        const session = sessionOf(event) ?? ensureSession(event);
        if (event.scope === "cumulative") session.cumulative = event.usage;
        else session.deltaUsage = addUsage(session.deltaUsage, event.usage);
        if (event.costUsd !== undefined) session.cost = event.scope === "cumulative" ? event.costUsd : (session.cost ?? 0) + event.costUsd;
        break;
      }
      case "metric": {
        // Agents' own diagnostics fold into the footer or say an unusual stop in words (../shared/metric.ts); other metrics show.
        const depth = depthOf(event);
        const view = viewMetric(event, verbose);
        const session = sessionOf(event) ?? ensureSession(event);
        if (view.thinkingTokens !== undefined) session.thinkingTokens = view.thinkingTokens;
        if (view.turnMs !== undefined) session.turnMs = (session.turnMs ?? 0) + view.turnMs;
        if (view.line === undefined) break;
        const text = oneLine(view.line);
        const shown = verbose || text.startsWith("Effective Temperature:") ? text : cutToWidth(text, Math.max(width - indentOf(depth).length, 20)).text;
        sideNote(() => line(depth, style(view.warning === true ? "warning" : "metric", view.warning === true ? `⚠ ${shown}` : shown)));
        break;
      }
      case "rate_limit": {
        const depth = depthOf(event);
        const scope = [event.limit, event.resetsAt !== undefined ? `resets ${formatTime(event.resetsAt)}` : ""].filter(Boolean).join(" · ");
        if (event.status === "allowed") {
          if (verbose) note(() => line(depth, style("meta", `◷ rate limit ok${scope !== "" ? ` · ${oneLine(scope)}` : ""}`)));
        } else if (event.status === "allowed_warning") {
          note(() => line(depth, style("warning", `◷ rate limit warning${scope !== "" ? ` · ${oneLine(scope)}` : ""}`)));
        } else note(() => line(depth, style("warning", `◷ rate limited (${oneLine(event.status)})${scope !== "" ? ` · ${oneLine(scope)}` : ""}`)));
        break;
      }
      case "retry": {
        const depth = depthOf(event);
        const text = `↻ retry ${event.attempt}${event.maxAttempts !== undefined ? `/${event.maxAttempts}` : ""}${event.delayMs !== undefined ? ` in ${formatDuration(event.delayMs)}` : ""}${event.error !== undefined ? `: ${event.error}` : ""}`;
        note(() => line(depth, style("warning", oneLine(text))));
        break;
      }
      case "heartbeat": {
        if (quiet || current !== undefined) break;
        if (mode === "full") {
          showStatus(event.idleMs);
          return;
        }
        // Elsewhere a status line, never a rewrite: the first of a run, then when the idle time passes a step.
        const idle = event.idleMs;
        if (heartbeatRun === undefined) {
          line(depthOf(event), style("meta", `◷ still working${idle !== undefined && idle >= 1000 ? ` · idle ${formatDuration(idle)}` : ""}`));
          heartbeatRun = { printed: idle ?? 0 };
        } else if (idle !== undefined) {
          const step = IDLE_STEPS_MS.find((s) => idle >= s && heartbeatRun !== undefined && heartbeatRun.printed < s);
          if (step !== undefined) {
            line(depthOf(event), style("meta", `◷ still working · idle ${formatDuration(idle)}`));
            heartbeatRun.printed = idle;
          }
        }
        return;
      }
      case "error": {
        const depth = depthOf(event);
        const what = `${event.scope === "session" || event.scope === "stream" ? "error" : `${event.scope} error`}${event.code !== undefined ? ` (${event.code})` : ""}`;
        settle();
        lastItem = `error:${event.seq}`;
        line(depth, style(event.fatal === true ? "errorStrong" : "error", `✗ ${oneLine(what)}: ${sanitizeForTerminal(event.message)}`), "  ");
        lastError = squeeze(event.message);
        break;
      }
      case "notice": {
        if (event.kind === "stderr") {
          // The agent's stderr (agentstream run): dimmed, at the left edge, like a text line.
          if (quiet) break;
          const depth = depthOf(event);
          sideNote(() => line(depth, style("meta", sanitizeForTerminal(event.text)), "  "));
          break;
        }
        if (event.level === "warning" ? quiet : !verbose) break;
        const depth = depthOf(event);
        const text = sanitizeForTerminal(event.text);
        sideNote(() => line(depth, event.level === "warning" ? style("warning", `⚠ ${text}`) : style("meta", `· ${text}`), "  "));
        break;
      }
      case "text": {
        // A line that is not an event: shown as it is (sanitised), at the left edge.
        begin("text", 0, `text:${event.seq}`);
        const clean = linkify(sanitizeForTerminal(event.text, richText));
        emitRows(`${sgrPolicy === "keep" && clean.includes("\x1b[") ? `${clean}\x1b[0m` : clean}\n`);
        break;
      }
      case "repair": {
        if (!verbose) break;
        const depth = depthOf(event);
        sideNote(() => line(depth, style("meta", `⚕ repair ${oneLine(event.kind)}: ${oneLine(event.message)}${event.removedChars > 0 ? ` (${event.removedChars} chars removed)` : ""}`)));
        break;
      }
      case "unknown": {
        if (!verbose) break;
        const depth = depthOf(event);
        const raw = event.raw === undefined ? "" : stringifyRecord(event.raw);
        sideNote(() => {
          line(depth, style("meta", `? unknown record${event.reason !== undefined ? `: ${oneLine(event.reason)}` : ""}`));
          showOutput(depth, raw, "meta");
        });
        break;
      }
      default:
        assertNever(event);
    }
  }

  return {
    render(event) {
      renderEvent(event);
      // Mode full shows text as it streams; basic and none write once per block (when no message line is open).
      if (mode === "full" || current === undefined) flush();
    },
    end() {
      releaseHeaders();
      for (const m of [...messages.values()]) if (m.started || m.length > 0) finishMessage(m);
      settle();
      releaseAfterTool();
      const open = [...sessions.values()].filter((s) => s.root && s.started && !s.completed);
      if (open.length > 0 && wroteAnything && verbosity !== "debug") {
        begin("footer", 0, "footer");
        emitRows(`${style("meta", "◌ the stream ended before the session did (no result record)")}\n`);
      }
      if (statusShown) {
        pending.push("\r\x1b[2K");
        statusShown = false;
      }
      flush();
    },
  };
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

function squeeze(text: string): string {
  return text.replace(/\s+/g, "");
}

function trimBlankEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === "") start++;
  while (end > start && (lines[end - 1] as string).trim() === "") end--;
  return start === 0 && end === lines.length ? lines : lines.slice(start, end);
}

/** A unified diff without its `---`/`+++` file header (the change line already names the file). */
function stripDiffHeader(diff: string): string {
  return diff.replace(/^(?:---[^\n]*\n\+\+\+[^\n]*\n)/, "");
}

function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (a === undefined) return b;
  const sum = (x: number | null, y: number | null): number | null => (x === null && y === null ? null : (x ?? 0) + (y ?? 0));
  return {
    inputTokens: sum(a.inputTokens, b.inputTokens),
    outputTokens: sum(a.outputTokens, b.outputTokens),
    cacheReadTokens: sum(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: sum(a.cacheWriteTokens, b.cacheWriteTokens),
    reasoningTokens: sum(a.reasoningTokens, b.reasoningTokens),
  };
}

