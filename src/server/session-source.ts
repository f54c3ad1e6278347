/**
 * A source of sessions beside the served files and registered runs (`agentstream serve --nats`: the
 * sessions of a JetStream stream, src/fleet/fleet-sessions.ts). The catalog lists its sessions with
 * the others and asks it for a feed when one of its ids is opened, so the page has one code path
 * for every session. A source that cannot be reached says so in `status()` and lists what it knew.
 */
import type { SessionInfo } from "./session-facts.ts";
import type { LiveSourceStatus } from "../views/web/live-wire.ts";
import type { SessionFeed } from "./session-feed.ts";

/** Whether a source can be read now (`GET /api/sources`, docs/web.md): the type the page reads. */
export type SourceStatus = LiveSourceStatus;

export interface SessionSource {
  /** Its sessions now, any order; ids match `[A-Za-z0-9_-]{1,64}` and differ from the files' ids. */
  list(): SessionInfo[];
  /** The live feed of one of its sessions; undefined for an id it does not know. */
  feed(id: string): Promise<SessionFeed | undefined>;
  status(): SourceStatus;
  close(): void;
}
