/** The line that ends a session: its status, then duration, turns, tokens and cost (only what the agent reported). */
import type { AgentEvent } from "../../model/events.ts";
import type { Role } from "../shared/color.ts";
import { formatCost, formatCount, formatDuration, formatUsage } from "../shared/format.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import { displayWidth } from "../shared/width.ts";
import { begin, emitRows, indentOf, style } from "./screen.ts";
import { costFallback, usageFallback, squeeze } from "./sessions.ts";
import type { RenderState, SessionState } from "./state.ts";

export function footer(r: RenderState, event: Extract<AgentEvent, { type: "session.completed" }>, session: SessionState | undefined): void {
  const depth = session?.depth ?? 0;
  const child = session !== undefined && !session.root;
  const usage = event.usage !== undefined && formatUsage(event.usage) !== "" ? event.usage : usageFallback(session);
  const cost = event.costUsd ?? costFallback(session);
  const durationMs = event.durationMs ?? session?.turnMs;
  const turns = event.turns ?? (session !== undefined && session.turnsSeen > 1 ? session.turnsSeen : undefined);
  const thinking = session?.thinkingTokens;
  const [mark, word, role]: [string, string, Role] =
    event.status === "success"
      ? ["✓", child ? "subagent done" : "done", "ok"]
      : event.status === "interrupted"
        ? ["◼", child ? "subagent interrupted" : "interrupted", "warning"]
        : ["✗", child ? "subagent failed" : "failed", "error"];
  const parts = [
    durationMs !== undefined ? formatDuration(durationMs) : "",
    turns !== undefined ? `${turns} turn${turns === 1 ? "" : "s"}` : "",
    usage !== undefined ? formatUsage(usage) : "",
    thinking !== undefined && (usage === undefined || !(usage.reasoningTokens !== null && usage.reasoningTokens > 0))
      ? `~${formatCount(thinking)} thinking`
      : "",
    cost !== undefined ? formatCost(cost) : "",
  ].filter(Boolean);
  begin(r, child ? "tools" : "footer", depth, "footer");
  footerRows(r, depth, `${mark} ${word}`, role === "ok" ? "okStrong" : role, parts, usage === undefined ? "" : formatUsage(usage));
  if (event.error !== undefined && event.error !== "" && event.status !== "success" && squeeze(event.error) !== r.lastError) {
    const reason = sanitizeForTerminal(event.error, { sgr: "visible" });
    emitRows(r, `${indentOf(depth)}  ${style(r, "error", reason.split("\n").join(`\n${indentOf(depth)}  `))}\n`);
  }
}

/**
 * The footer's rows: `head` (styled as `role`), then `parts` (`tokens` among them) on the same row when they fit; too
 * wide for one row, the token counts go on a second line instead of wrapping mid-phrase.
 */
function footerRows(r: RenderState, depth: number, head: string, role: Role, parts: readonly string[], tokens: string): void {
  const styled = `${indentOf(depth)}${style(r, role, head)}`;
  const oneRow = `${indentOf(depth)}${head} · ${parts.join(" · ")}`;
  if (parts.length === 0) emitRows(r, `${styled}\n`);
  else if (displayWidth(oneRow) <= r.width || tokens === "") emitRows(r, `${styled}${style(r, "meta", ` · ${parts.join(" · ")}`)}\n`);
  else {
    const rest = parts.filter((p) => p !== tokens);
    emitRows(
      r,
      `${styled}${rest.length > 0 ? style(r, "meta", ` · ${rest.join(" · ")}`) : ""}\n${indentOf(depth)}  ${style(r, "meta", tokens)}\n`,
    );
  }
}

/** No input stat is shown: the totals need only the events. */
const NO_RECORD_STATS = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };

/**
 * The end of a top session that has no result record, with the totals `summary --json` gives for the stream
 * (duration, turns, tokens, cost: what is known). A saved session log (claude-session, codex-session, gemini-session)
 * never has one: once its file is no longer written (`stillWritten` false) it is shown as ended. Any other stream
 * was cut before its end, said once: by `run`'s own notice when there was one, else here.
 */
export function endFooter(r: RenderState, stillWritten: boolean): void {
  const totals = r.totals.result(NO_RECORD_STATS, r.dialect);
  const tokens = formatUsage(totals.usage);
  const parts = [
    totals.durationMs !== null ? formatDuration(totals.durationMs) : "",
    totals.turns !== null ? `${totals.turns} turn${totals.turns === 1 ? "" : "s"}` : "",
    tokens,
    totals.costUsd !== null ? formatCost(totals.costUsd, totals.costEstimated) : "",
  ].filter(Boolean);
  // The summary says `ended` for a saved session log; it is shown so once the file is no longer written.
  const ended = !stillWritten && totals.status === "ended";
  if (!ended && r.incompleteSaid && parts.length === 0) return;
  const head = ended ? "■ ended" : r.incompleteSaid ? "◌ totals" : "◌ the stream ended before the session did (no result record)";
  begin(r, "footer", 0, "footer");
  footerRows(r, 0, head, ended ? "header" : "meta", parts, tokens);
}
