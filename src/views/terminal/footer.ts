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
  const head = `${indentOf(depth)}${style(r, role === "ok" ? "okStrong" : role, `${mark} ${word}`)}`;
  const oneRow = `${indentOf(depth)}${mark} ${word} · ${parts.join(" · ")}`;
  if (parts.length === 0) emitRows(r, `${head}\n`);
  else if (displayWidth(oneRow) <= r.width || usage === undefined || formatUsage(usage) === "")
    emitRows(r, `${head}${style(r, "meta", ` · ${parts.join(" · ")}`)}\n`);
  else {
    // Too wide for one row: the token counts go on a second line instead of wrapping mid-phrase.
    const tokens = formatUsage(usage);
    const rest = parts.filter((p) => p !== tokens);
    emitRows(
      r,
      `${head}${rest.length > 0 ? style(r, "meta", ` · ${rest.join(" · ")}`) : ""}\n${indentOf(depth)}  ${style(r, "meta", tokens)}\n`,
    );
  }
  if (event.error !== undefined && event.error !== "" && event.status !== "success" && squeeze(event.error) !== r.lastError) {
    const reason = sanitizeForTerminal(event.error, { sgr: "visible" });
    emitRows(r, `${indentOf(depth)}  ${style(r, "error", reason.split("\n").join(`\n${indentOf(depth)}  `))}\n`);
  }
}
