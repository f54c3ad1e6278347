/**
 * The publisher's link to NATS: connects (retrying while the server is down), makes sure the
 * stream exists, and follows the connection (lost, reconnected). It says whether NATS can take
 * messages now (`ready`) and whether the first attempt is still under way (`starting`: events
 * wait in memory meanwhile, since starting is not an outage).
 */
import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { connectNats, type NatsConnectOptions } from "./connection.ts";
import { ensureStream, type StreamLimits } from "./stream.ts";

/** Wakes whoever waits (the pump, the connector): new events, a connection, closing. */
export interface Waker {
  wake(): void;
  /** Resolves on the next `wake`, or after `ms`. */
  wait(ms: number): Promise<void>;
}

export function createWaker(): Waker {
  const waiters = new Set<() => void>();
  return {
    wake() {
      for (const resume of [...waiters]) resume();
    },
    wait: (ms) =>
      new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      }),
  };
}

export interface LinkEvents {
  /** NATS cannot take messages (the first attempt failed, the connection dropped): spool. */
  down(reason: string): void;
  /** A line for a person. */
  notice(text: string): void;
}

export interface Link {
  readonly ready: boolean;
  readonly starting: boolean;
  readonly client: JetStreamClient | undefined;
  /** Stops retrying and closes the connection. */
  close(): Promise<void>;
}

const MAX_RETRY_MS = 4000;

export function openLink(
  options: { readonly connection: NatsConnectOptions; readonly stream: StreamLimits; readonly servers: string },
  waker: Waker,
  events: LinkEvents,
): Link {
  let connection: NatsConnection | undefined;
  let client: JetStreamClient | undefined;
  let ready = false;
  let starting = true;
  let stopped = false;
  const failedToStart = (reason: string): void => {
    if (!starting) return;
    starting = false;
    events.down(reason);
  };

  const becomeReady = async (nc: NatsConnection): Promise<void> => {
    for (let attempt = 0; !stopped && !nc.isClosed(); attempt++) {
      try {
        await ensureStream(nc, options.stream);
        ready = true;
        starting = false;
        waker.wake();
        return;
      } catch (error) {
        if (attempt === 0)
          events.notice(`cannot use the stream ${options.stream.name} on ${options.servers}: ${reasonOf(error)}; retrying`);
        failedToStart(`the stream ${options.stream.name} is not available`);
        await waker.wait(Math.min(250 * 2 ** attempt, MAX_RETRY_MS));
      }
    }
  };
  const follow = async (nc: NatsConnection): Promise<void> => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "staleConnection") {
        ready = false;
        events.down(`lost the connection to NATS (${options.servers})`);
      } else if (status.type === "reconnect") {
        events.notice(`reconnected to NATS (${options.servers}): sending what waited`);
        void becomeReady(nc);
      }
    }
  };
  const start = async (): Promise<void> => {
    for (let attempt = 0; !stopped && connection === undefined; attempt++) {
      try {
        // Two missed pings, 2 s apart, and the connection counts as lost (a paused server).
        const connected = await connectNats(options.connection, { pingInterval: 2000, maxPingOut: 2 });
        // Closed while connecting: this connection would keep the process alive for nothing.
        if (stopped) return void (await connected.close().catch(() => {}));
        connection = connected;
      } catch (error) {
        if (attempt === 0) events.notice(`cannot connect to NATS (${options.servers}): ${reasonOf(error)}; retrying`);
        failedToStart(`NATS (${options.servers}) is not answering`);
        await waker.wait(Math.min(250 * 2 ** attempt, MAX_RETRY_MS));
      }
    }
    if (connection === undefined) return;
    client = jetstream(connection);
    void follow(connection);
    await becomeReady(connection);
  };
  void start();

  return {
    get ready() {
      return ready;
    },
    get starting() {
      return starting;
    },
    get client() {
      return client;
    },
    async close() {
      stopped = true;
      waker.wake();
      await connection?.close().catch(() => {});
    },
  };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
