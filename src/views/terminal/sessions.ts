/** Sessions as the renderer tracks them: depth (subagents indent), working directory, usage and cost the footer falls back on. */
import type { AgentEvent, Usage } from "../../model/events.ts";
import { ANSWERS_KEPT, type RenderState, type SessionState } from "./state.ts";

export function sessionOf(r: RenderState, event: AgentEvent): SessionState | undefined {
  return event.sessionId === undefined ? undefined : r.sessions.get(event.sessionId);
}

export function depthOf(r: RenderState, event: AgentEvent): number {
  return sessionOf(r, event)?.depth ?? 0;
}

export function cwdOf(r: RenderState, event: AgentEvent): string | undefined {
  return sessionOf(r, event)?.cwd;
}

export function newSession(depth: number, cwd: string | undefined, root: boolean, started: boolean): SessionState {
  return {
    depth,
    cwd,
    root,
    started,
    completed: false,
    answers: [],
    answersLength: 0,
    cumulative: undefined,
    deltaUsage: undefined,
    cost: undefined,
    plan: undefined,
    thinkingTokens: undefined,
    turnMs: undefined,
    turnUsage: undefined,
    turnCost: undefined,
    turnsSeen: 0,
  };
}

export function ensureSession(r: RenderState, event: AgentEvent): SessionState {
  const id = event.sessionId ?? "";
  let session = r.sessions.get(id);
  if (session === undefined) {
    session = newSession(0, undefined, true, false);
    r.sessions.set(id, session);
  }
  return session;
}

/** What the session reported besides its result: cumulative usage, else deltas and turns added up (as `summary` folds them). */
export function usageFallback(session: SessionState | undefined): Usage | undefined {
  if (session === undefined) return undefined;
  if (session.cumulative !== undefined) return session.cumulative;
  if (session.deltaUsage === undefined) return session.turnUsage;
  return session.turnUsage === undefined ? session.deltaUsage : addUsage(session.turnUsage, session.deltaUsage);
}

export function costFallback(session: SessionState | undefined): number | undefined {
  if (session === undefined || (session.cost === undefined && session.turnCost === undefined)) return undefined;
  return (session.cost ?? 0) + (session.turnCost ?? 0);
}

export function addUsage(a: Usage | undefined, b: Usage): Usage {
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

/**
 * Remembers an answer shown. Past twice `ANSWERS_KEPT` characters the oldest are dropped, as many as leave at least
 * `ANSWERS_KEPT`: in one splice now and then, not one per answer (a splice per answer cost a third of the layout).
 */
export function keepAnswer(session: SessionState, text: string): void {
  session.answers.push(text);
  session.answersLength += text.length;
  if (session.answersLength <= 2 * ANSWERS_KEPT) return;
  let drop = 0;
  while (drop < session.answers.length - 1 && session.answersLength - (session.answers[drop] as string).length >= ANSWERS_KEPT) {
    session.answersLength -= (session.answers[drop] as string).length;
    drop++;
  }
  session.answers.splice(0, drop);
}

/** Text without white space: answers and errors are compared so (an agent repeats them re-wrapped). */
export function squeeze(text: string): string {
  return text.replace(/\s+/g, "");
}

/**
 * Whether the session's answers, run together without white space, end with `flat` (squeezed). Only the
 * last answers are squeezed, as many as `flat` needs: squeezing each answer as it completed cost more than
 * the rest of its message's layout.
 */
export function answersEndWith(session: SessionState, flat: string): boolean {
  let tail = "";
  for (let i = session.answers.length - 1; i >= 0 && tail.length < flat.length; i--) tail = squeeze(session.answers[i] as string) + tail;
  return tail.endsWith(flat);
}
