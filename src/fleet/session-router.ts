/**
 * Which subject each event of one input goes to, and its message id (docs/fleet.md).
 *
 * A session's subject is decided once, from the first event that names the session (the root
 * `session.started`, else any event carrying `sessionId`): `agentstream.<host>.<agent>.<session>`,
 * the agent being the dialect that read it (claude, codex, ...; for `run`, else the command). Events read
 * before that (a banner, a heartbeat while the agent starts) are held, at most HOLD_EVENTS of them
 * or HOLD_MS, and go to the same subject first. A stream that never names its session goes to a
 * fallback name (the run id for `run`, a hash of the input's start for `publish`). A subagent's
 * events stay on the subject of the session that started it, so a reader sees them in place.
 */
import { stringifyRecord } from "../framing/stringify.ts";
import type { AgentEvent } from "../model/events.ts";
import type { SpooledMessage } from "./spool.ts";
import { hash32, messageId, sessionSubject } from "./subjects.ts";

/** Events held before the session names itself, at most (then the fallback name is used). */
const HOLD_EVENTS = 1000;
const HOLD_MS = 2000;

export interface SessionRouterOptions {
  readonly host: string;
  /** The agent token when no event says (the command name of `run`). */
  readonly agent?: string;
  /** The session token for a stream that never names its session; given the events held. @defaultValue `anon-<hash of the first events>` */
  readonly fallbackSession?: (held: readonly AgentEvent[]) => string;
}

export interface SessionRouter {
  event(event: AgentEvent): void;
  /** The input ended: what is held goes out under the fallback name. */
  end(): void;
}

export function createSessionRouter(options: SessionRouterOptions, emit: (message: SpooledMessage) => void): SessionRouter {
  let subject: string | undefined;
  let session: string | undefined;
  let held: AgentEvent[] = [];
  let heldSince = 0;
  const send = (event: AgentEvent, to: string): void => emit({ subject: to, id: messageId(to, event.seq), data: stringifyRecord(event) });
  const open = (name: string, agent: string): void => {
    session = name;
    subject = sessionSubject({ host: options.host, agent, session: name });
    const waiting = held;
    held = [];
    for (const event of waiting) send(event, subject);
  };
  const openFallback = (): void => {
    const name =
      options.fallbackSession?.(held) ??
      `anon-${hash32(
        held
          .slice(0, 64)
          .map((e) => stringifyRecord(e))
          .join("\n"),
      )}`;
    open(name, agentOf(held, options.agent));
  };
  return {
    event(event) {
      const isRoot = event.type === "session.started" && event.parentSessionId === undefined;
      // A new root session in the same input (concatenated sessions): its own subject from here on.
      if (subject !== undefined && isRoot && event.sessionId !== undefined && event.sessionId !== session) subject = undefined;
      if (subject === undefined) {
        if (held.length === 0) heldSince = Date.now();
        held.push(event);
        if (event.sessionId !== undefined) open(event.sessionId, agentOf(held, options.agent));
        else if (held.length >= HOLD_EVENTS || Date.now() - heldSince >= HOLD_MS) openFallback();
        return;
      }
      send(event, subject);
    },
    end() {
      if (held.length > 0) openFallback();
    },
  };
}

/**
 * The dialect that read the session (claude, codex, gemini, ...: the names `--from` takes), else
 * what the caller knows (the command `run` started), else the agent product the session names.
 */
function agentOf(events: readonly AgentEvent[], fallback: string | undefined): string {
  for (const event of events) if (event.source?.dialect !== undefined) return event.source.dialect;
  if (fallback !== undefined) return fallback;
  for (const event of events) if (event.type === "session.started" && event.agent !== undefined) return event.agent;
  return "unknown";
}
