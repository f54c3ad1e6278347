/**
 * What the live page receives from `agentstream serve` (docs/web.md): the session list's JSON and
 * the SSE control frames. Written here as the page reads them; the server's side is
 * src/server/session-facts.ts and src/server/sse-stream.ts (the browser tests check they agree).
 */
import type { Usage } from "../../model/events.ts";

/** One entry of `GET /api/sessions`. */
export interface LiveSessionInfo {
  readonly id: string;
  readonly agent: string | null;
  readonly agentVersion: string | null;
  readonly model: string | null;
  readonly cwd: string | null;
  readonly start: string | null;
  readonly status: "running" | "success" | "error" | "interrupted" | "incomplete";
  readonly live: boolean;
  readonly tokens: Usage;
  readonly cost: number | null;
  readonly file: string | null;
  /** The host that published it (a session of NATS: `serve --nats`); null for a local one. */
  readonly host: string | null;
  readonly events: number;
}

/** One entry of `GET /api/sources`: a source beside the files (NATS) and whether it can be read now. */
export interface LiveSourceStatus {
  readonly kind: string;
  readonly description: string;
  readonly state: "connecting" | "available" | "unavailable";
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
