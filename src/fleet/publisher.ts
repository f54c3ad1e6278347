/**
 * The fleet publisher: normalized (redacted) events to NATS JetStream, one subject per session,
 * in order, each event once (docs/fleet.md).
 *
 * `event()` never waits and never throws: the agent run goes on whatever NATS does. Events are
 * published asynchronously, up to WINDOW in flight (./_window.ts), each with its message id
 * (`Nats-Msg-Id`); an event leaves the outbox only once it and every older one are acknowledged,
 * and after a failure everything unacknowledged is sent again in order, so a retry stores nothing
 * twice (JetStream drops a repeated id within its duplicate window) and nothing overtakes it.
 * While the server is down, paused or slower than the agent, events go to the on-disk spool (./spool.ts) instead, in order, and are sent from there, oldest
 * first, once it answers again; new events keep going to the spool until it is empty, so order
 * holds. What does not fit in the spool is dropped, counted and said.
 */
import type { AgentEvent } from "../model/events.ts";
import { createOutbox, type Outbox } from "./_outbox.ts";
import { createWaker, openLink, type Link, type Waker } from "./_link.ts";
import { describeServers, toConnectionOptions, type NatsConnectOptions } from "./connection.ts";
import { createSessionRouter, type SessionRouter, type SessionRouterOptions } from "./session-router.ts";
import { openSpool, type SpooledMessage } from "./spool.ts";
import { PublishWindow } from "./_window.ts";
import type { StreamLimits } from "./stream.ts";

/** Publishes in flight at once, at most: enough to keep the server busy between two turns of our loop. */
const WINDOW = 4096;
/** Messages handed to the window at once, so one turn of the loop sends them in one socket write. */
const CHUNK = 512;
/** Events in memory beyond which an input that can wait is held back (`room()`): under the outbox's memory share. */
const BACKLOG = 4096;
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
  /**
   * Resolves once NATS has room for more: at once while the events go to the spool anyway (NATS down,
   * refusing, or older events spooled), else once the events in memory are fewer than BACKLOG. For an
   * input that can wait (a file): read no faster than NATS takes it, with no round trip through the spool.
   */
  room(): Promise<void>;
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
    async room() {
      while (!state.stopped && (link.starting || (link.ready && !outbox.spooling && outbox.backlog >= BACKLOG)))
        await waker.wait(MAX_BACKOFF_MS);
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
 * Sends the outbox, oldest first, through a window of up to WINDOW publishes in flight: topped up
 * as acknowledgements come in, the acknowledged head taken off the outbox. A failure sends every
 * unacknowledged message again, in order, after a backoff.
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
  let window: PublishWindow | undefined;
  const drop = (): void => {
    window?.close();
    window = undefined;
    outbox.rewind();
  };
  try {
    while (!state.stopped) {
      const connection = link.connection;
      if (!link.ready || connection === undefined) {
        if (window !== undefined) drop();
        await waker.wait(MAX_BACKOFF_MS);
        continue;
      }
      if (window === undefined || window.connection !== connection || window.generation !== link.generation) {
        // A window of a lost connection: what it did not get acknowledged goes again, first, on this one.
        if (window !== undefined) drop();
        window = new PublishWindow(connection, link.generation, () => waker.wake());
      }
      const settled = window.settled();
      if (settled.stored + settled.duplicates > 0) {
        failures = 0;
        counts.published += settled.stored;
        counts.duplicates += settled.duplicates;
        outbox.commit(settled.stored + settled.duplicates);
        waker.wake(); // close() may be waiting for the outbox to empty
      }
      const oldest = window.oldestSentAt;
      const failed =
        window.failed ?? (oldest !== undefined && Date.now() - oldest > settings.ackTimeoutMs ? "no acknowledgement" : undefined);
      if (failed !== undefined) {
        drop();
        failures++;
        outbox.spill(`NATS (${settings.servers}) did not acknowledge (${failed})`);
        await waker.wait(Math.min(100 * 2 ** failures, MAX_BACKOFF_MS));
        continue;
      }
      // Topped up a chunk at a time: a few publishes per acknowledgement would be a socket write each.
      while (WINDOW - window.pending >= CHUNK) {
        const messages = outbox.take(CHUNK);
        if (messages.length === 0) break;
        window.send(messages);
      }
      const sentAt = window.oldestSentAt;
      await waker.wait(sentAt === undefined ? MAX_BACKOFF_MS : Math.max(1, sentAt + settings.ackTimeoutMs + 1 - Date.now()));
    }
  } finally {
    // At close: what is unacknowledged stays in the outbox (then the spool) for the next publisher.
    drop();
  }
}
