/** Everything else: usage, metrics, rate limits, retries, heartbeats, errors, notices, lines that are not events, repairs, unknown records. */
import { stringifyRecord } from "../../framing/stringify.ts";
import type { EventOf } from "../../model/events.ts";
import { formatDuration, formatTime } from "../shared/format.ts";
import { viewMetric } from "../shared/metric.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import { cutToWidth } from "../shared/width.ts";
import { linkify } from "./messages.ts";
import { begin, emitRows, indentOf, line, note, oneLine, settle, showStatus, sideNote, style } from "./screen.ts";
import { addUsage, depthOf, ensureSession, sessionOf, squeeze } from "./sessions.ts";
import { IDLE_STEPS_MS, type RenderState } from "./state.ts";
import { showOutput } from "./tools.ts";

export function onUsage(r: RenderState, event: EventOf<"usage">): void {
  const session = sessionOf(r, event) ?? ensureSession(r, event);
  if (event.scope === "cumulative") session.cumulative = event.usage;
  else session.deltaUsage = addUsage(session.deltaUsage, event.usage);
  if (event.costUsd !== undefined) session.cost = event.scope === "cumulative" ? event.costUsd : (session.cost ?? 0) + event.costUsd;
}

export function onMetric(r: RenderState, event: EventOf<"metric">): void {
  // Agents' own diagnostics fold into the footer or say an unusual stop in words (../shared/metric.ts); other metrics show.
  const depth = depthOf(r, event);
  const view = viewMetric(event, r.verbose);
  const session = sessionOf(r, event) ?? ensureSession(r, event);
  if (view.thinkingTokens !== undefined) session.thinkingTokens = view.thinkingTokens;
  if (view.turnMs !== undefined) session.turnMs = (session.turnMs ?? 0) + view.turnMs;
  if (view.line === undefined) return;
  const text = oneLine(view.line);
  const shown =
    r.verbose || text.startsWith("Effective Temperature:") ? text : cutToWidth(text, Math.max(r.width - indentOf(depth).length, 20)).text;
  sideNote(r, () => line(r, depth, style(r, view.warning === true ? "warning" : "metric", view.warning === true ? `⚠ ${shown}` : shown)));
}

export function onRateLimit(r: RenderState, event: EventOf<"rate_limit">): void {
  const depth = depthOf(r, event);
  const scope = [event.limit, event.resetsAt !== undefined ? `resets ${formatTime(event.resetsAt)}` : ""].filter(Boolean).join(" · ");
  if (event.status === "allowed") {
    if (r.verbose) note(r, () => line(r, depth, style(r, "meta", `◷ rate limit ok${scope !== "" ? ` · ${oneLine(scope)}` : ""}`)));
  } else if (event.status === "allowed_warning") {
    note(r, () => line(r, depth, style(r, "warning", `◷ rate limit warning${scope !== "" ? ` · ${oneLine(scope)}` : ""}`)));
  } else
    note(r, () =>
      line(r, depth, style(r, "warning", `◷ rate limited (${oneLine(event.status)})${scope !== "" ? ` · ${oneLine(scope)}` : ""}`)),
    );
}

export function onRetry(r: RenderState, event: EventOf<"retry">): void {
  const depth = depthOf(r, event);
  const text = `↻ retry ${event.attempt}${event.maxAttempts !== undefined ? `/${event.maxAttempts}` : ""}${event.delayMs !== undefined ? ` in ${formatDuration(event.delayMs)}` : ""}${event.error !== undefined ? `: ${event.error}` : ""}`;
  note(r, () => line(r, depth, style(r, "warning", oneLine(text))));
}

export function onHeartbeat(r: RenderState, event: EventOf<"heartbeat">): void {
  if (r.quiet || r.current !== undefined) return;
  if (r.mode === "full") {
    showStatus(r, event.idleMs);
    return;
  }
  // Elsewhere a status line, never a rewrite: the first of a run, then when the idle time passes a step.
  const idle = event.idleMs;
  if (r.heartbeatRun === undefined) {
    line(
      r,
      depthOf(r, event),
      style(r, "meta", `◷ still working${idle !== undefined && idle >= 1000 ? ` · idle ${formatDuration(idle)}` : ""}`),
    );
    r.heartbeatRun = { printed: idle ?? 0 };
  } else if (idle !== undefined) {
    const step = IDLE_STEPS_MS.find((s) => idle >= s && r.heartbeatRun !== undefined && r.heartbeatRun.printed < s);
    if (step !== undefined) {
      line(r, depthOf(r, event), style(r, "meta", `◷ still working · idle ${formatDuration(idle)}`));
      r.heartbeatRun.printed = idle;
    }
  }
}

export function onError(r: RenderState, event: EventOf<"error">): void {
  const depth = depthOf(r, event);
  const what = `${event.scope === "session" || event.scope === "stream" ? "error" : `${event.scope} error`}${event.code !== undefined ? ` (${event.code})` : ""}`;
  settle(r);
  r.lastItem = `error:${event.seq}`;
  line(
    r,
    depth,
    style(r, event.fatal === true ? "errorStrong" : "error", `✗ ${oneLine(what)}: ${sanitizeForTerminal(event.message)}`),
    "  ",
  );
  r.lastError = squeeze(event.message);
}

export function onNotice(r: RenderState, event: EventOf<"notice">): void {
  if (event.kind === "stderr") {
    // The agent's stderr (agentstream run): dimmed, at the left edge, like a text line.
    if (r.quiet) return;
    const depth = depthOf(r, event);
    sideNote(r, () => line(r, depth, style(r, "meta", sanitizeForTerminal(event.text)), "  "));
    return;
  }
  if (event.kind === "exit" && exitedBadly(event)) {
    // `agentstream run`'s agent ended with a non-zero code or a signal: always said. Before the session's end, the
    // notice that the stream is incomplete follows and says why (with this exit): it waits for it.
    if ([...r.sessions.values()].some((s) => s.root && s.completed)) showExit(r, event);
    else r.heldExit = event;
    return;
  }
  if (event.kind === "incomplete") {
    // Said once: here, not again at the end (footer.ts); with -q too, where it stands for the footer.
    r.heldExit = undefined;
    r.incompleteSaid = true;
  } else if (event.level === "warning" ? r.quiet : !r.verbose) return;
  const depth = depthOf(r, event);
  const text = sanitizeForTerminal(event.text);
  sideNote(r, () => line(r, depth, event.level === "warning" ? style(r, "warning", `⚠ ${text}`) : style(r, "meta", `· ${text}`), "  "));
}

export function onText(r: RenderState, event: EventOf<"text">): void {
  // A line that is not an event: shown as it is (sanitised), at the left edge.
  begin(r, "text", 0, `text:${event.seq}`);
  const clean = linkify(r, sanitizeForTerminal(event.text, r.richText));
  emitRows(r, `${r.sgrPolicy === "keep" && clean.includes("\x1b[") ? `${clean}\x1b[0m` : clean}\n`);
}

export function onRepair(r: RenderState, event: EventOf<"repair">): void {
  if (!r.verbose) return;
  const depth = depthOf(r, event);
  sideNote(r, () =>
    line(
      r,
      depth,
      style(
        r,
        "meta",
        `⚕ repair ${oneLine(event.kind)}: ${oneLine(event.message)}${event.removedChars > 0 ? ` (${event.removedChars} chars removed)` : ""}`,
      ),
    ),
  );
}

export function onUnknown(r: RenderState, event: EventOf<"unknown">): void {
  // A record its format says to show as plain text (a Witness type the spec does not list): shown like a text
  // line at every verbosity; `-v` adds the record itself below it.
  if (event.text !== undefined && event.text !== "") onText(r, { ...event, type: "text", text: event.text, position: "interleaved" });
  if (!r.verbose) return;
  const depth = depthOf(r, event);
  const raw = event.raw === undefined ? "" : stringifyRecord(event.raw);
  sideNote(r, () => {
    line(r, depth, style(r, "meta", `? unknown record${event.reason !== undefined ? `: ${oneLine(event.reason)}` : ""}`));
    showOutput(r, depth, raw, "meta");
  });
}

/** An exit notice (`agentstream run`) with a code other than 0, or a signal. */
function exitedBadly(event: EventOf<"notice">): boolean {
  const code = event.details?.exitCode;
  const signal = event.details?.signal;
  return (typeof code === "number" && code !== 0) || (typeof signal === "string" && signal !== "");
}

function showExit(r: RenderState, event: EventOf<"notice">): void {
  const depth = depthOf(r, event);
  settle(r);
  line(r, depth, style(r, "errorStrong", `✗ ${sanitizeForTerminal(event.text, { keepNewlines: false })}`), "  ");
}

/** The agent's non-zero exit held back for an incomplete notice that did not come (./create-terminal-renderer.ts). */
export function showHeldExit(r: RenderState): void {
  const held = r.heldExit;
  if (held === undefined) return;
  r.heldExit = undefined;
  showExit(r, held);
}
