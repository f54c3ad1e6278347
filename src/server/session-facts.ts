/** What the session list says about a session, folded from its events as they pass. */
import type { AgentEvent } from "../model/events.ts";
import type { RecordStats } from "../pipeline/create-event-reader.ts";
import { createSummaryBuilder } from "../summary/summarize.ts";
import type { LiveSessionInfo } from "../views/web/live-wire.ts";

/** What `GET /api/sessions` says about one session (docs/web.md): the type the page reads. */
export type SessionInfo = LiveSessionInfo;

/** Record counts for a summary that no reader feeds (a run's pushed events). */
const NO_STATS: RecordStats = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };

/** Folds events into the list's facts (the same summary fold as `agentstream summary`). */
export class SessionFacts {
  private readonly summary = createSummaryBuilder();
  private started: Extract<AgentEvent, { type: "session.started" }> | undefined;
  private firstTime: string | undefined;
  private count = 0;
  stats: () => RecordStats = () => NO_STATS;
  dialect: () => string | undefined = () => undefined;

  add(event: AgentEvent): void {
    this.summary.add(event);
    this.count++;
    this.firstTime ??= event.time;
    if (event.type === "session.started" && this.started === undefined && event.parentSessionId === undefined) this.started = event;
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
      status: live && summary.status === "incomplete" ? "running" : summary.status,
      live,
      tokens: summary.usage,
      cost: summary.costUsd,
      file,
      host,
      events: this.count,
    };
  }
}
