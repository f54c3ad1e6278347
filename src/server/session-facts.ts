/** What the session list says about a session, folded from its events as they pass. */
import type { AgentEvent, Usage } from "../model/events.ts";
import type { RecordStats } from "../pipeline/create-event-reader.ts";
import { createSummaryBuilder } from "../summary/summarize.ts";

/** What `GET /api/sessions` says about one session (docs/web.md). */
export interface SessionInfo {
  readonly id: string;
  readonly agent: string | null;
  readonly agentVersion: string | null;
  readonly model: string | null;
  readonly cwd: string | null;
  /** When it started (its first event's time), ISO 8601. */
  readonly start: string | null;
  /** `running` while it is live and has not completed; else the summary's status. */
  readonly status: "running" | "success" | "error" | "interrupted" | "incomplete";
  /** True while events may still arrive. */
  readonly live: boolean;
  readonly tokens: Usage;
  readonly cost: number | null;
  /** The log it is read from, as found under the served paths; null for a run's own session. */
  readonly file: string | null;
  /** The host that published it (a session read from NATS: `serve --nats`); null for a local one. */
  readonly host: string | null;
  /** Events so far. */
  readonly events: number;
}

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
