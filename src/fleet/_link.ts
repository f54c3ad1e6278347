/**
 * The publisher's link to NATS: connects (retrying while the server is down), makes sure the
 * stream exists, and follows the connection (lost, reconnected). It says whether NATS can take
 * messages now (`ready`) and whether the first attempt is still under way (`starting`: events
 * wait in memory meanwhile, since starting is not an outage).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
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
      if (waiters.size === 0) return; // called per event and per acknowledgement: nothing to allocate then
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
  /**
   * Goes up at every loss and every reconnection of the connection. What was published before a loss
   * and not acknowledged may be lost (the tail of what went out on the old socket): it is sent again
   * before anything newer, on the next generation (./_window.ts).
   */
  readonly generation: number;
  /** The connection, once made (the pump publishes on it: ./_window.ts). */
  readonly connection: NatsConnection | undefined;
  /** Stops retrying and closes the connection (waiting CLOSE_WAIT_MS at most for the server to see it). */
  close(): Promise<void>;
}

const MAX_RETRY_MS = 4000;
/** How long closing waits for the connection to flush and close: a hung server must not hold the process. */
const CLOSE_WAIT_MS = 500;

/**
 * A closed connection's socket is destroyed, whatever the client did. To a server that stopped
 * reading (paused, overloaded) the client's close() resolves, or hangs, with the socket still open
 * (its last write never drains): the process would stay alive, after its last line, until that server
 * answers again.
 */
function abandon(connection: NatsConnection): void {
  const transport = (connection as unknown as { protocol?: { transport?: { socket?: { destroy(): void } } } }).protocol?.transport;
  transport?.socket?.destroy();
}

/**
 * The client sockets opened while one of our connection attempts is under way. An attempt the client gives up
 * (no INFO from a server that accepted the connection but does not answer: paused, overloaded, not NATS) leaves
 * its socket open, and with it the process, after our last line: what the attempt opened and did not keep is
 * destroyed here when it fails or when the link closes under it. Node says which sockets a client opens only
 * through this channel; we listen to it only while an attempt is pending.
 */
class AttemptSockets {
  readonly sockets = new Set<Socket>();
  readonly listener = (message: unknown): void => {
    const socket = (message as { socket?: Socket }).socket;
    if (socket !== undefined) this.sockets.add(socket);
  };

  constructor() {
    subscribe("net.client.socket", this.listener);
  }

  /** Stops listening and destroys the sockets opened meanwhile, but `kept` (the connection's own). */
  release(kept?: NatsConnection): void {
    unsubscribe("net.client.socket", this.listener);
    const own = kept === undefined ? undefined : socketOf(kept);
    for (const socket of this.sockets) if (socket !== own) socket.destroy();
    this.sockets.clear();
  }
}

function socketOf(connection: NatsConnection): unknown {
  return (connection as unknown as { protocol?: { transport?: { socket?: unknown } } }).protocol?.transport?.socket;
}

/** A wait that does not keep the process alive on its own. */
function sleepUnref(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export function openLink(
  options: { readonly connection: NatsConnectOptions; readonly stream: StreamLimits; readonly servers: string },
  waker: Waker,
  events: LinkEvents,
): Link {
  let connection: NatsConnection | undefined;
  let ready = false;
  let starting = true;
  let generation = 0;
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
        if (stopped) return;
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
        generation++;
        events.down(`lost the connection to NATS (${options.servers})`);
      } else if (status.type === "reconnect") {
        generation++;
        events.notice(`reconnected to NATS (${options.servers}): sending what waited`);
        void becomeReady(nc);
      }
    }
  };
  let attemptSockets: AttemptSockets | undefined;
  const start = async (): Promise<void> => {
    for (let attempt = 0; !stopped && connection === undefined; attempt++) {
      attemptSockets = new AttemptSockets();
      try {
        // Two missed pings, 2 s apart, and the connection counts as lost (a paused server).
        const connected = await connectNats(options.connection, { pingInterval: 2000, maxPingOut: 2 });
        attemptSockets.release(connected);
        // Closed while connecting: this connection would keep the process alive for nothing.
        if (stopped) {
          await Promise.race([connected.close().catch(() => {}), sleepUnref(CLOSE_WAIT_MS)]);
          return abandon(connected);
        }
        connection = connected;
      } catch (error) {
        attemptSockets.release();
        // Closed meanwhile: nothing more to say or to try (the last line is out).
        if (stopped) return;
        if (attempt === 0) events.notice(`cannot connect to NATS (${options.servers}): ${reasonOf(error)}; retrying`);
        failedToStart(`NATS (${options.servers}) is not answering`);
        await waker.wait(Math.min(250 * 2 ** attempt, MAX_RETRY_MS));
      }
    }
    if (connection === undefined) return;
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
    get generation() {
      return generation;
    },
    get connection() {
      return connection;
    },
    async close() {
      stopped = true;
      waker.wake();
      // An attempt under way is given up: what it opened goes now, not when the client's timeout ends it.
      attemptSockets?.release();
      if (connection === undefined) return;
      await Promise.race([connection.close().catch(() => {}), sleepUnref(CLOSE_WAIT_MS)]);
      abandon(connection);
    },
  };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
