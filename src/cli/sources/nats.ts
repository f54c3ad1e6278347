/**
 * The NATS source of `tail`: the events of the JetStream stream (src/fleet/reader.ts), from the
 * point `--since` names, filtered by host, agent and session, until Ctrl-C (or, with
 * `--no-follow`, until every event stored when it began has been read). Unlike a file source it
 * yields events, not bytes: they were normalized and redacted by whoever published them.
 */
import { AgentStreamError, type Issue } from "../../errors.ts";
import type { NatsConnectOptions } from "../../fleet/connection.ts";
import { readFleet, type FleetEvent, type StartPoint } from "../../fleet/reader.ts";
import type { SessionAddress } from "../../fleet/subjects.ts";
import { parseDuration } from "../../run/_duration.ts";
import type { CliIo } from "../io.ts";

export interface NatsSourceOptions {
  readonly connection: NatsConnectOptions;
  readonly stream: string;
  readonly filter: Partial<SessionAddress>;
  readonly since: StartPoint | undefined;
  readonly durable: string | undefined;
  readonly follow: boolean;
  readonly onIssue: (issue: Issue) => void;
}

/**
 * The events, until Ctrl-C (`io.onInterrupt`: the first one ends the reading cleanly, so the sinks
 * still write their ends; a second one ends the program).
 */
export async function* natsEvents(options: NatsSourceOptions, io: Pick<CliIo, "onInterrupt">): AsyncGenerator<FleetEvent> {
  const abort = new AbortController();
  const restore = io.onInterrupt?.(() => abort.abort());
  try {
    yield* readFleet({
      connection: options.connection,
      stream: options.stream,
      filter: options.filter,
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(options.durable === undefined ? {} : { durable: options.durable }),
      follow: options.follow,
      signal: abort.signal,
      onIssue: options.onIssue,
    });
  } finally {
    restore?.();
  }
}

/**
 * `--since`: `all`; a stream sequence (a whole number: what `tail --to agentstream` shows as the
 * position); an RFC 3339 time; or a duration back from now (`10m`, `2h`: a unit is required, so
 * a bare number is always a sequence).
 */
export function parseSince(text: string | undefined, now: Date = new Date()): StartPoint | undefined {
  if (text === undefined) return undefined;
  const value = text.trim();
  if (value === "all") return { kind: "all" };
  if (value === "new") return { kind: "new" };
  if (/^\d+$/.test(value)) {
    const sequence = Number(value);
    return sequence <= 1 ? { kind: "all" } : { kind: "sequence", sequence };
  }
  if (/^\d+(?:\.\d+)?(ms|s|m|h)$/.test(value)) return { kind: "time", time: new Date(now.getTime() - parseDuration("--since", value)) };
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : undefined;
  if (time !== undefined && !Number.isNaN(time.getTime())) return { kind: "time", time };
  throw new AgentStreamError(
    "usage",
    `--since takes all, a stream sequence (1234), a time (2026-11-25T14:00:00Z) or a duration back from now (10m), not "${text}"`,
  );
}
