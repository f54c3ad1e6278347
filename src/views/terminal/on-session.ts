/** Sessions and turns: the header line, the final answer and footer, a failed turn. */
import type { EventOf } from "../../model/events.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import { footer } from "./footer.ts";
import { showFinalAnswer } from "./messages.ts";
import { begin, emitRows, indentOf, line, oneLine, style } from "./screen.ts";
import { addUsage, depthOf, ensureSession, newSession, sessionOf, squeeze } from "./sessions.ts";
import type { RenderState } from "./state.ts";

export function onSessionStarted(r: RenderState, event: EventOf<"session.started">): void {
  const parent = event.parentSessionId !== undefined ? r.sessions.get(event.parentSessionId) : undefined;
  const isChild = event.parentSessionId !== undefined || event.parentToolCallId !== undefined;
  const depth = isChild ? (parent?.depth ?? 0) + 1 : 0;
  const cwd = isChild ? parent?.cwd : event.cwd;
  r.sessions.set(event.sessionId ?? "", newSession(depth, cwd, !isChild, true));
  const about = [
    event.agentVersion !== undefined ? `${event.agent ?? "agent"} ${event.agentVersion}` : event.agent,
    event.model,
    !isChild ? event.cwd : undefined,
  ].filter((s): s is string => s !== undefined && s !== "");
  if (isChild) {
    begin(r, "tools", depth, `session:${event.sessionId ?? ""}`);
    emitRows(r, `${indentOf(depth)}${style(r, "meta", `◇ subagent${about.length > 0 ? ` · ${oneLine(about.join(" · "))}` : ""}`)}\n`);
  } else {
    begin(r, "header", 0, `session:${event.sessionId ?? ""}`);
    const [first, ...rest] = about.length > 0 ? about : ["session"];
    emitRows(
      r,
      `${style(r, "header", `◆ ${oneLine(first as string)}`)}${rest.length > 0 ? style(r, "meta", ` · ${oneLine(rest.join(" · "))}`) : ""}\n`,
    );
    if (r.verbose) {
      const details = [
        event.sessionId !== undefined ? `session ${event.sessionId}` : "",
        event.tools !== undefined ? `${event.tools.length} tools` : "",
        event.permissionMode ?? "",
      ].filter(Boolean);
      if (details.length > 0) emitRows(r, `  ${style(r, "meta", oneLine(details.join(" · ")))}\n`);
    }
  }
}

export function onSessionCompleted(r: RenderState, event: EventOf<"session.completed">): void {
  const session = ensureSession(r, event);
  session.completed = true;
  if (event.finalText !== undefined && event.finalText !== "" && event.status === "success")
    showFinalAnswer(r, event.finalText, session, event);
  footer(r, event, session);
}

/** A turn's start shows nothing: its end shows what it cost (below). */
export function onTurnStarted(): void {}

export function onTurnCompleted(r: RenderState, event: EventOf<"turn.completed">): void {
  const session = sessionOf(r, event) ?? ensureSession(r, event);
  session.turnsSeen++;
  if (event.usage !== undefined) session.turnUsage = addUsage(session.turnUsage, event.usage);
  if (event.costUsd !== undefined) session.turnCost = (session.turnCost ?? 0) + event.costUsd;
  if (event.status === "error") {
    const repeated = event.error !== undefined && squeeze(event.error) === r.lastError;
    line(
      r,
      depthOf(r, event),
      style(r, "error", `✗ turn failed${event.error !== undefined && !repeated ? `: ${sanitizeForTerminal(event.error)}` : ""}`),
      "  ",
    );
    if (event.error !== undefined) r.lastError = squeeze(event.error);
  }
}
