/**
 * What the live page receives from `agentstream serve` (docs/web.md): the session list's JSON and
 * the SSE control frames. The server writes these same types (src/server/session-facts.ts,
 * src/server/session-source.ts, src/server/sse-stream.ts).
 */
import type { Usage } from "../../model/events.ts";

/** One entry of `GET /api/sessions`. */
export interface LiveSessionInfo {
  readonly id: string;
  readonly agent: string | null;
  readonly agentVersion: string | null;
  readonly model: string | null;
  readonly cwd: string | null;
  /** When it started (its first event's time), ISO 8601. */
  readonly start: string | null;
  /** `running` while it is live and has not completed; else the summary's status. */
  readonly status: "running" | "success" | "error" | "interrupted" | "ended" | "incomplete";
  /** True while events may still arrive. */
  readonly live: boolean;
  readonly tokens: Usage;
  readonly cost: number | null;
  /** `cost` is an estimate from the price table (the log holds none): shown as `~$2.39`, as every view shows it. */
  readonly costEstimated: boolean;
  /** The log it is read from, as found under the served paths; null for a run's own session. */
  readonly file: string | null;
  /** The host that published it (a session read from NATS: `serve --nats`); null for a local one. */
  readonly host: string | null;
  /** Events so far. */
  readonly events: number;
  /**
   * The session's title, when its agent gave it one (Claude Code's `ai-title`/`custom-title` records, else
   * its `summary` line; a subagent file: its `.meta.json` type and description), one line, at most 200 characters.
   */
  readonly title: string | null;
  /** Its first prompt (the root session's first user text), one line, at most 200 characters. */
  readonly prompt: string | null;
  /** The subagent files of this session (Claude Code's `<session>/subagents/agent-<id>.jsonl`), each openable by its id. */
  readonly subagents: readonly LiveSessionInfo[];
}

/** One entry of `GET /api/sources`: a source beside the files (NATS) and whether it can be read now. */
export interface LiveSourceStatus {
  /** `nats`. */
  readonly kind: string;
  /** What it is, safe to show: `nats://alice:***@host:4222 stream AGENTSTREAM` (secrets masked). */
  readonly description: string;
  readonly state: "connecting" | "available" | "unavailable";
  /** Why it is not available (or null). */
  readonly detail: string | null;
}

/** `event: heartbeat` (every 15 s while the stream is quiet). */
export interface HeartbeatControl {
  readonly time: string;
  readonly live: boolean;
}

/** `event: resync` (this viewer fell behind and is dropped; the browser reconnects with Last-Event-ID). */
export interface ResyncControl {
  readonly reason: string;
}

/** `event: truncated` (the server no longer keeps the first events of a very long session). */
export interface TruncatedControl {
  readonly dropped: number;
}

/** One hit of `GET /api/search`: an event of a served session whose text matched (redacted by the index). */
export interface LiveSearchHit {
  /** The session's id in the API (`/api/sessions/<id>`): what the page opens. */
  readonly session: string;
  /** `claude`, `codex`, `gemini`, ... (as `sessions` names them). */
  readonly agent: string;
  /** The agent's own session id, when it gave one. */
  readonly sessionId: string | null;
  /** The working directory the session ran in. */
  readonly project: string | null;
  readonly model: string | null;
  readonly status: string;
  /** The event's seq in the session's stream (the SSE `id:`): where the page scrolls to. */
  readonly event: number;
  /** 1-based line of the record in the log (null for an event the reader made up). */
  readonly line: number | null;
  /** When, RFC 3339, or null. */
  readonly time: string | null;
  /** `prompt`, `answer`, `reasoning`, `tool`, `input`, `output` or `error`. */
  readonly field: string;
  /** The tool's name, for a tool call's name, input or output. */
  readonly tool: string | null;
  /** The lines around the match, redacted (agent text: shown as text only). */
  readonly snippet: string;
  /** Where the query matched in `snippet`: `[start, end)` in UTF-16 code units. */
  readonly ranges: readonly (readonly [number, number])[];
}

/** `GET /api/search`'s answer. */
export interface LiveSearchAnswer {
  /** Newest first. */
  readonly hits: readonly LiveSearchHit[];
  /** More hits past `offset + limit`. */
  readonly more: boolean;
}
