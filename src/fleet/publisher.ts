/**
 * The fleet publisher: normalized (redacted) events to NATS JetStream, one subject per session,
 * in order, each event once (docs/fleet.md).
 *
 * `event()` never waits and never throws: the agent run goes on whatever NATS does. Events are
 * sent in batches of up to BATCH_SIZE publishes in flight, each with its message id
 * (`Nats-Msg-Id`), and a batch is sent again whole until every publish in it is acknowledged, so
 * a retry stores nothing twice (JetStream drops a repeated id within its duplicate window) and
 * the next batch never overtakes it. While the server is down, paused or slower than the agent,
 * events go to the on-disk spool (./spool.ts) instead, in order, and are sent from there, oldest
 * first, once it answers again; new events keep going to the spool until it is empty, so order
 * holds. What does not fit in the spool is dropped, counted and said.
 */
import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import type { AgentEvent } from "../model/events.ts";
import { createOutbox, type Outbox } from "./_outbox.ts";
import { createWaker, openLink, type Link, type Waker } from "./_link.ts";
import { describeServers, toConnectionOptions, type NatsConnectOptions } from "./connection.ts";
import { createSessionRouter, type SessionRouter, type SessionRouterOptions } from "./session-router.ts";
import { openSpool, type SpooledMessage } from "./spool.ts";
import type { StreamLimits } from "./stream.ts";

/** Publishes in flight at once. */
const BATCH_SIZE = 256;
/** The longest wait between two attempts while NATS fails, and the pump's idle tick. */
const MAX_BACKOFF_MS = 2000;

export interface PublisherOptions {
  readonly connection: NatsConnectOptions;
  readonly stream: StreamLimits;
  /** The host token of every subject. */
  readonly host: string;
  readonly spoolDir: string;
  /** The spool's size at most, in bytes. */
  readonly spoolMaxBytes: number;
  /** How long one publish waits for its acknowledgement before the batch is sent again. @defaultValue 5000 */
  readonly ackTimeoutMs?: number;
  /** Lines for a person (stderr): lost connection, spooling, the spool full. Never a secret. */
  readonly onNotice?: (text: string) => void;
}

/** What a publisher did, for the summary and stderr. */
export interface PublishReport {
  /** The servers, passwords masked. */
  readonly servers: string;
  readonly stream: string;
  /** Events stored by JetStream. */
  readonly published: number;
  /** Events JetStream already had (a retry after a lost acknowledgement, or published before). */
  readonly duplicates: number;
  /** Events that went through the spool. */
  readonly spooled: number;
  /** Events that did not fit in the spool: lost. */
  readonly dropped: number;
  /** Events still in the spool when the publisher closed (sent by the next publisher on this host). */
  readonly waiting: number;
  /** The spool file that holds them, when `waiting` > 0. */
  readonly spoolFile: string | null;
  /** Events of earlier publishers on this host that were found in the spool folder and sent first. */
  readonly adoptedFiles: number;
}

export interface Publisher {
  /** One event of the input named `input` (each input is its own stream of sessions). Never waits. */
  event(event: AgentEvent, input?: string): void;
  /** The input ended: events it still holds go out. */
  endInput(input?: string): void;
  /** Waits up to `timeoutMs` for everything to be sent, keeps the rest in the spool, and reports. */
  close(timeoutMs: number): Promise<PublishReport>;
}

/** How each input's sessions are named (the router options except the host). */
export type InputNaming = Omit<SessionRouterOptions, "host">;

export function createPublisher(options: PublisherOptions, naming: (input: string) => InputNaming = () => ({})): Publisher {
  // A credential file that cannot be read is the caller's mistake, said now: not a server that seems down.
  toConnectionOptions(options.connection);
  const servers = describeServers(options.connection.servers);
  const notice = options.onNotice ?? (() => {});
  const spool = openSpool({ dir: options.spoolDir, host: options.host, maxBytes: options.spoolMaxBytes });
  if (spool.adopted.length > 0) notice(`found ${spool.adopted.length} spool file(s) left by earlier publishers: sending them first`);
  const outbox = createOutbox(spool, {
    spooling: (reason) => notice(`${reason}: events go to the spool (${spool.file}) until NATS takes them`),
    caughtUp: () => notice("the spool is sent: publishing live again"),
    full: () =>
      notice(
        `the spool is full (${spool.file}, --spool-max ${options.spoolMaxBytes} bytes): events are being dropped; the count is in the summary`,
      ),
  });
  const waker = createWaker();
  const link = openLink({ connection: options.connection, stream: options.stream, servers }, waker, {
    down: (reason) => outbox.spill(reason),
    notice,
  });
  const counts = { published: 0, duplicates: 0 };
  const state = { stopped: false };
  const pumping = pump(link, outbox, waker, counts, state, { servers, ackTimeoutMs: options.ackTimeoutMs ?? 5000 });
  const routers = new Map<string, SessionRouter>();
  const enqueue = (message: SpooledMessage): void => {
    outbox.add(message, link.ready || link.starting);
    waker.wake();
  };

  return {
    event(event, input = "") {
      let router = routers.get(input);
      if (router === undefined) {
        router = createSessionRouter({ ...naming(input), host: options.host }, enqueue);
        routers.set(input, router);
      }
      router.event(event);
    },
    endInput(input = "") {
      routers.get(input)?.end();
      routers.delete(input);
    },
    async close(timeoutMs) {
      for (const router of routers.values()) router.end();
      routers.clear();
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && !outbox.empty) await waker.wait(Math.min(50, deadline - Date.now()));
      state.stopped = true;
      waker.wake();
      await pumping;
      // What was not sent is kept on disk for the next publisher on this host.
      outbox.flush();
      const waiting = spool.empty ? 0 : spool.countWaiting();
      spool.close();
      await link.close();
      return {
        servers,
        stream: options.stream.name,
        ...counts,
        spooled: spool.appended,
        dropped: spool.dropped,
        waiting,
        spoolFile: waiting > 0 ? spool.file : null,
        adoptedFiles: spool.adopted.length,
      };
    },
  };
}

/**
 * Sends the outbox, oldest first, a batch at a time: a batch is sent again, whole, until every
 * publish in it is acknowledged, and only then is the next one taken.
 */
async function pump(
  link: Link,
  outbox: Outbox,
  waker: Waker,
  counts: { published: number; duplicates: number },
  state: { readonly stopped: boolean },
  settings: { readonly servers: string; readonly ackTimeoutMs: number },
): Promise<void> {
  let failures = 0;
  while (!state.stopped) {
    const client = link.client;
    if (!link.ready || client === undefined) {
      await waker.wait(MAX_BACKOFF_MS);
      continue;
    }
    const batch = outbox.next(BATCH_SIZE);
    if (batch.messages.length === 0) {
      await waker.wait(MAX_BACKOFF_MS);
      continue;
    }
    const acks = await publishAll(client, batch.messages, settings.ackTimeoutMs);
    if (acks !== undefined) {
      failures = 0;
      for (const ack of acks) counts[ack.duplicate ? "duplicates" : "published"]++;
      batch.sent();
      waker.wake(); // close() may be waiting for the outbox to empty
      continue;
    }
    failures++;
    outbox.spill(`NATS (${settings.servers}) did not acknowledge`);
    await waker.wait(Math.min(100 * 2 ** failures, MAX_BACKOFF_MS));
  }
}

/** Every message published with its id; the acknowledgements, or undefined when any failed. */
async function publishAll(client: JetStreamClient, messages: readonly SpooledMessage[], timeout: number): Promise<PubAck[] | undefined> {
  const acks = await Promise.allSettled(messages.map((m) => client.publish(m.subject, m.data, { msgID: m.id, timeout })));
  const stored: PubAck[] = [];
  for (const ack of acks) {
    if (ack.status === "rejected") return undefined;
    stored.push(ack.value);
  }
  return stored;
}
