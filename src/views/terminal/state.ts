/**
 * What the terminal renderer knows while it runs: its settings (from RendererOptions) and what is on
 * screen (the open message line, tool calls, sessions, notes waiting for a line to close). One object,
 * passed to every part of the renderer (./screen.ts, ./messages.ts, ./tools.ts, ./footer.ts, ./on-*.ts).
 */
import { cutMarker, type EndsOptions } from "../../framing/ndjson/tool-output-ends.ts";
import type { EventOf, JsonValue, MessageKind, MessageRole, PlanItem, Usage } from "../../model/events.ts";
import { createSummaryBuilder, type SummaryBuilder } from "../../summary/summarize.ts";
import type { SanitizeOptions, TerminalSanitizer } from "../shared/sanitize.ts";
import type { RenderMode, Verbosity } from "../shared/types.ts";

/** Tool output lines shown in normal verbosity: this many from the start and from the end. */
export const NORMAL_HEAD = 4;
export const NORMAL_TAIL = 4;
export const VERBOSE_HEAD = 20;
export const VERBOSE_TAIL = 20;
/** Lines of a prompt (user message) shown in normal verbosity. */
export const USER_LINES = 8;
/** Columns a streamed word may still grow by and stay on its row; nearer the row's end, its start waits for the next delta. */
export const WORD_SLACK = 16;
/** Hide nothing unless at least this many lines would be hidden (a summary line must save rows). */
export const MIN_HIDDEN = 3;
/**
 * The lines of a long tool output this view shows at `verbosity`, from its start and its end, so that a reader
 * may read only those (`ConsumerReading.toolOutputEnds`, `render`); undefined when it shows every line.
 */
export function outputEnds(verbosity: Verbosity, width: number): EndsOptions | undefined {
  if (verbosity === "full" || verbosity === "debug") return undefined;
  // A shown line is cut to its row's room (at most the width, which the renderer makes at least 20), four rows of it with -v (tools.ts).
  const columns = 4 * Math.max(Math.floor(width), 20);
  const marker = cutMarker();
  return verbosity === "verbose"
    ? { head: VERBOSE_HEAD, tail: VERBOSE_TAIL, minHidden: MIN_HIDDEN, columns, marker }
    : { head: NORMAL_HEAD, tail: NORMAL_TAIL, minHidden: MIN_HIDDEN, columns, marker };
}
/**
 * Characters of a session's latest answers kept at least to compare the final answer with (`SessionState.answers`,
 * at most twice this): older ones are dropped, so a long session's memory stays flat. A final answer that repeats more than this of earlier answers is
 * shown again (docs/render.md). Kept small on purpose: an answer kept across a few young-generation collections is
 * promoted to the old generation, and a stream of answers kept that long is a stream of old-generation garbage, most
 * of the view's peak memory.
 */
export const ANSWERS_KEPT = 1 << 16;
/** A run of heartbeats prints its first one, then again when the idle time passes each of these. */
export const IDLE_STEPS_MS = [30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];

/** One streamed or complete message, while it is open. */
export interface MessageState {
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

export interface ToolState {
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

export interface SessionState {
  readonly depth: number;
  /** The top session's working directory: paths under it are shown relative to it (the header names it). */
  readonly cwd: string | undefined;
  readonly root: boolean;
  /** Its session.started was seen (an unfinished one is reported at the end). */
  readonly started: boolean;
  completed: boolean;
  /**
   * The latest assistant answers shown in the session, as shown: at least `ANSWERS_KEPT` characters of them (when
   * there were so many), at most twice that, and always the latest: the final answer is not shown again when they end with it (`answersEndWith`).
   */
  readonly answers: string[];
  /** Characters in `answers`. */
  answersLength: number;
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

export type Group = "header" | "message" | "tools" | "text" | "footer";

/** The renderer's settings and screen state. */
export interface RenderState {
  readonly write: (text: string) => void;
  readonly mode: RenderMode;
  readonly verbosity: Verbosity;
  readonly width: number;
  readonly quiet: boolean;
  /** `-v` or more. */
  readonly verbose: boolean;
  /** `--full` (or debug): nothing is cut. */
  readonly uncut: boolean;
  /** The marker of the outputs its reader cut to their ends (`EndsOptions.marker`), when it asked for that. */
  readonly cutMarker: string | undefined;
  readonly links: boolean;
  readonly sgrPolicy: SanitizeOptions["sgr"];
  /** Options for untrusted multi-line text that may keep its colours (tool output, messages, text lines). */
  readonly richText: SanitizeOptions;
  pending: string[];
  /** The cursor is at the start of a line (as far as our own output goes). */
  atLineStart: boolean;
  wroteAnything: boolean;
  /** In mode full, a message's style stays open across deltas; closed at every write, reopened after. */
  openSgr: string;
  sgrIsOpen: boolean;
  readonly messages: Map<string, MessageState>;
  /** The message whose text ends the output so far (its line is open). */
  current: MessageState | undefined;
  /** Notes that arrived while a message line was open: shown when it closes. */
  deferred: (() => void)[];
  /** Notes that arrived between a tool call and its result: shown after the result, so the two stay together. */
  afterTool: (() => void)[];
  readonly tools: Map<string, ToolState>;
  /** Tool calls whose arguments are still streaming: their header waits for them, in order. */
  waitingHeaders: ToolState[];
  readonly sessions: Map<string, SessionState>;
  lastGroup: { group: Group; depth: number } | undefined;
  /** What the last lines on screen belong to (`tool:<id>`, `msg:<id>`, ...): decides whether a tool result needs a reference line. */
  lastItem: string;
  heartbeatRun: { printed: number } | undefined;
  /** Mode full: a live status line (heartbeats) is on the last row, without a newline. */
  statusShown: boolean;
  /** The last error message shown: a turn or session end that repeats it word for word does not show it again. */
  lastError: string;
  /**
   * The stream's facts folded as `summary --json` folds them (deltas left out: they change none of them): the totals
   * the end of a session with no result record shows (a saved session log, a cut stream), the same figures as `summary`.
   */
  readonly totals: SummaryBuilder;
  /** The dialect of the stream, from the first event that names it: a saved session log (claude-session, ...) has no result record by nature. */
  dialect: string | undefined;
  /** A non-zero exit of `agentstream run`'s agent before the session's end: shown at the next event, unless it is the incomplete notice that says why. */
  heldExit: EventOf<"notice"> | undefined;
  /** `run`'s notice that the stream ended without its final record was shown: the end does not say it again. */
  incompleteSaid: boolean;
}

/** The settings a renderer is created with (RendererOptions, defaults applied by the caller). */
export interface RenderSettings {
  readonly write: (text: string) => void;
  readonly mode: RenderMode;
  readonly verbosity: Verbosity;
  readonly width: number;
  readonly links: boolean;
  readonly keepColors: boolean;
  readonly cutMarker?: string | undefined;
}

/** A renderer's state before the first event. */
export function createRenderState(settings: RenderSettings): RenderState {
  const { mode, verbosity, links } = settings;
  const sgrPolicy: SanitizeOptions["sgr"] = settings.keepColors ? (mode === "none" ? "drop" : "keep") : "visible";
  // An OSC 8 link in untrusted text shows its target as text; `linkify` then makes it ours.
  const linkOut = (url: string): string => `<${url}> `;
  return {
    write: settings.write,
    mode,
    verbosity,
    width: settings.width,
    quiet: verbosity === "quiet",
    verbose: verbosity === "verbose" || verbosity === "full" || verbosity === "debug",
    uncut: verbosity === "full" || verbosity === "debug",
    cutMarker: settings.cutMarker,
    links,
    sgrPolicy,
    richText: links ? { sgr: sgrPolicy, link: linkOut } : { sgr: sgrPolicy },
    pending: [],
    atLineStart: true,
    wroteAnything: false,
    openSgr: "",
    sgrIsOpen: false,
    messages: new Map(),
    current: undefined,
    deferred: [],
    afterTool: [],
    tools: new Map(),
    waitingHeaders: [],
    sessions: new Map(),
    lastGroup: undefined,
    lastItem: "",
    heartbeatRun: undefined,
    statusShown: false,
    lastError: "",
    // The footer shows totals only: no list of tool calls, so the builder's memory does not grow with the stream.
    totals: createSummaryBuilder({ toolCalls: false }),
    dialect: undefined,
    heldExit: undefined,
    incompleteSaid: false,
  };
}
