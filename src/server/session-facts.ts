/** What the session list says about a session, folded from its events as they pass. */
import type { AgentEvent } from "../model/events.ts";
import type { RecordStats } from "../pipeline/create-event-reader.ts";
import { createSummaryBuilder } from "../summary/summarize.ts";
import type { LiveSessionInfo } from "../views/web/live-wire.ts";

/** What `GET /api/sessions` says about one session (docs/web.md): the type the page reads. */
export type SessionInfo = LiveSessionInfo;

/** Record counts for a summary that no reader feeds (a run's pushed events). */
const NO_STATS: RecordStats = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };

/** How long a title or a prompt in the list may be (characters; the rest is cut). */
const LINE_CHARS = 200;

/** Folds events into the list's facts (the same summary fold as `agentstream summary`). */
export class SessionFacts {
  // The list shows no tool calls: keeping one entry per call would grow with the session.
  private readonly summary = createSummaryBuilder({ toolCalls: false });
  private started: Extract<AgentEvent, { type: "session.started" }> | undefined;
  private firstTime: string | undefined;
  private count = 0;
  private prompt: string | undefined;
  /** The agent's title for the session (a `title` notice, the last one), else its `summary` notice. */
  private title: string | undefined;
  private summaryLine: string | undefined;
  stats: () => RecordStats = () => NO_STATS;
  dialect: () => string | undefined = () => undefined;

  add(event: AgentEvent): void {
    this.summary.add(event);
    this.count++;
    this.firstTime ??= event.time;
    if (event.type === "session.started" && this.started === undefined && event.parentSessionId === undefined) this.started = event;
    else if (event.type === "message.completed" && event.role === "user" && event.kind === "text" && this.prompt === undefined) {
      // The root's first prompt: a subagent's prompt (its own session id) does not name the session.
      if (this.started === undefined || event.sessionId === undefined || event.sessionId === this.started.sessionId)
        this.prompt = oneLine(event.text);
    } else if (event.type === "notice" && event.kind === "title") this.title = oneLine(event.text);
    else if (event.type === "notice" && event.kind === "summary") this.summaryLine ??= oneLine(event.text);
  }

  info(id: string, file: string | null, live: boolean, host: string | null = null): SessionInfo {
    const summary = this.summary.result(this.stats(), this.dialect());
    return {
      id,
      agent: summary.agent,
      agentVersion: summary.agentVersion,
      model: summary.model,
      cwd: this.started?.cwd ?? null,
      start: this.started?.time ?? this.firstTime ?? null,
      status: live && (summary.status === "incomplete" || summary.status === "ended") ? "running" : summary.status,
      live,
      tokens: summary.usage,
      cost: summary.costUsd,
      costEstimated: summary.costEstimated,
      file,
      host,
      events: this.count,
      title: this.title ?? this.summaryLine ?? null,
      prompt: this.prompt ?? null,
      subagents: [],
    };
  }
}

/**
 * Text as one line of at most LINE_CHARS characters (whole code points); undefined when nothing is left or it is
 * no text at all (pushed events are a remote run's or NATS's, not checked field by field).
 */
export function oneLine(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const line = text.replace(/\s+/g, " ").trim();
  if (line === "") return undefined;
  const chars = Array.from(line);
  return chars.length <= LINE_CHARS ? line : `${chars.slice(0, LINE_CHARS - 1).join("")}…`;
}
