/**
 * The terminal view: any agent's events as a person would watch them. Append-only: no cursor
 * movement and no carriage-return rewrites, so it reads right in a terminal at any width, in a
 * pipe, a CI log, a file, or a console that strips ANSI. The first text of a message prints its
 * marker and the text, later deltas only their new suffix, completion one newline (the contract of
 * ../shared/docs/seed-origins-and-ralph-contract.md, "Rendering rules"). Never touches `process`:
 * output goes through `write`. Every piece of agent or tool text goes through the escape-sequence
 * sanitizer (../shared/sanitize.ts) before our own styling is put around it. docs/render.md describes the view.
 *
 * This file is the renderer's shell: settings, the dispatch of each event type to its part
 * (./on-session.ts, ./on-message.ts, ./on-tool.ts, ./on-status.ts) and the end of the stream.
 */
import { stringifyRecord } from "../../framing/stringify.ts";
import type { AgentEvent, AgentEventType, EventOf } from "../../model/events.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import type { RenderMode, Verbosity } from "../shared/types.ts";
import { finishMessage } from "./messages.ts";
import { onMessageCompleted, onMessageDelta, onMessageStarted } from "./on-message.ts";
import { onSessionCompleted, onSessionStarted, onTurnCompleted, onTurnStarted } from "./on-session.ts";
import {
  onError,
  onHeartbeat,
  onMetric,
  onNotice,
  onRateLimit,
  onRepair,
  onRetry,
  onText,
  onUnknown,
  onUsage,
  showHeldExit,
} from "./on-status.ts";
import { endFooter } from "./footer.ts";
import { onFileChanged, onPlanUpdated, onToolCompleted, onToolInputDelta, onToolProgress, onToolStarted } from "./on-tool.ts";
import { clearStatus, emit, flush, releaseAfterTool, settle, style } from "./screen.ts";
import { createRenderState, type RenderState } from "./state.ts";
import { releaseHeaders } from "./tools.ts";

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
  /**
   * The marker `render`'s reader puts on the first cut line of a long output it read as its ends
   * (`ConsumerReading.toolOutputEnds`, `outputEnds()`): an output holding it is shown cut whatever its length.
   */
  cutMarker?: string;
}

export interface TerminalRenderer {
  /** Shows one event. */
  render(event: AgentEvent): void;
  /**
   * Finishes an open line, ends a session that had no result record (a saved session log: ended, with its totals;
   * another stream: cut short), and writes what is left. Call once.
   */
  end(options?: RendererEndOptions): void;
}

export interface RendererEndOptions {
  /**
   * The input may still be written (a followed file changed a moment ago): a saved session log is then shown as
   * unfinished, not ended. @defaultValue false
   */
  readonly stillWritten?: boolean;
}

/** One part per event type: what the renderer does with it. */
const HANDLERS: { readonly [T in AgentEventType]: (r: RenderState, event: EventOf<T>) => void } = {
  "session.started": onSessionStarted,
  "session.completed": onSessionCompleted,
  "turn.started": onTurnStarted,
  "turn.completed": onTurnCompleted,
  "message.started": onMessageStarted,
  "message.delta": onMessageDelta,
  "message.completed": onMessageCompleted,
  "tool.started": onToolStarted,
  "tool.input.delta": onToolInputDelta,
  "tool.progress": onToolProgress,
  "tool.completed": onToolCompleted,
  "file.changed": onFileChanged,
  "plan.updated": onPlanUpdated,
  usage: onUsage,
  metric: onMetric,
  rate_limit: onRateLimit,
  retry: onRetry,
  heartbeat: onHeartbeat,
  error: onError,
  notice: onNotice,
  text: onText,
  repair: onRepair,
  unknown: onUnknown,
};

/**
 * Creates a renderer; call `render` for each event and `end` once.
 * @example
 * const renderer = createTerminalRenderer({ write: (t) => process.stdout.write(t), mode: "full", width: process.stdout.columns });
 * for await (const event of readEvents(process.stdin)) renderer.render(event);
 * renderer.end();
 */
export function createTerminalRenderer(options: RendererOptions): TerminalRenderer {
  const r = createRenderState({
    write: (text) => options.write(text),
    mode: options.mode ?? "none",
    verbosity: options.verbosity ?? "normal",
    width: Math.max(20, Math.floor(options.width ?? 80)),
    links: options.links === true,
    keepColors: options.keepColors === true,
    cutMarker: options.cutMarker,
  });
  return {
    render(event) {
      // The totals the end shows when no result record does (footer.ts); deltas change none of them.
      if (event.type !== "message.delta" && event.type !== "tool.input.delta" && event.type !== "tool.progress") r.totals.add(event);
      r.dialect ??= event.source?.dialect;
      renderEvent(r, event);
      // Mode full shows text as it streams; basic and none write once per block (when no message line is open).
      if (r.mode === "full" || r.current === undefined) flush(r);
    },
    end(endOptions = {}) {
      releaseHeaders(r);
      for (const m of [...r.messages.values()]) if (m.started || m.length > 0) finishMessage(r, m);
      settle(r);
      releaseAfterTool(r);
      showHeldExit(r);
      const open = [...r.sessions.values()].filter((s) => s.root && s.started && !s.completed);
      if (open.length > 0 && r.wroteAnything && r.verbosity !== "debug") endFooter(r, endOptions.stillWritten === true);
      clearStatus(r);
      flush(r);
    },
  };
}

function renderEvent(r: RenderState, event: AgentEvent): void {
  if (r.verbosity === "debug") {
    debugLine(r, event);
    return;
  }
  // The agent's exit waits for the incomplete notice that may say it (on-status.ts); any other event shows it.
  if (r.heldExit !== undefined && !(event.type === "notice" && event.kind === "incomplete")) showHeldExit(r);
  // A tool header waits for its streamed arguments only while they stream: any other event shows it.
  if (r.waitingHeaders.length > 0 && !(event.type === "tool.input.delta" && r.waitingHeaders.some((t) => t.id === event.toolCallId)))
    releaseHeaders(r);
  const handle = HANDLERS[event.type] as (r: RenderState, event: AgentEvent) => void;
  handle(r, event);
}

/** `--debug`: each event as one line of JSON (sanitised). */
function debugLine(r: RenderState, event: AgentEvent): void {
  const json = sanitizeForTerminal(stringifyRecord(event), { keepNewlines: false });
  emit(r, `${style(r, "meta", `#${event.seq}`)} ${style(r, "tool", event.type)} ${json}\n`);
}
