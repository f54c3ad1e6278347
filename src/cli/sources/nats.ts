/**
 * The NATS source of `tail`: the events of the JetStream stream (src/fleet/reader.ts), from the
 * point `--since` names, filtered by host, agent and session, until Ctrl-C (or, with
 * `--no-follow`, until every event stored when it began has been read). Unlike a file source it
 * yields events, not bytes: they were normalized and redacted by whoever published them.
 */
import type { Issue } from "../../errors.ts";
import type { NatsConnectOptions } from "../../fleet/connection.ts";
import { readFleet, type FleetEvent, type StartPoint } from "../../fleet/reader.ts";
import type { SessionAddress } from "../../fleet/subjects.ts";
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
