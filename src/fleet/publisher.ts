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
import { jetstream, type JetStreamClient, type PubAck } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AgentEvent } from "../model/events.ts";
import { connectNats, describeServers, type NatsConnectOptions } from "./connection.ts";
import { createSessionRouter, type SessionRouter, type SessionRouterOptions } from "./session-router.ts";
import { openSpool, type Spool, type SpooledMessage } from "./spool.ts";
import { ensureStream, type StreamLimits } from "./stream.ts";

/** Publishes in flight at once. */
const BATCH_SIZE = 256;
/** Events kept in memory while NATS keeps up; beyond this they go to the spool. */
const MEMORY_EVENTS = 8192;
/** The longest wait between two attempts while NATS fails. */
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
  const servers = describeServers(options.connection.servers);
  const notice = options.onNotice ?? (() => {});
  const spool = openSpool({ dir: options.spoolDir, host: options.host, maxBytes: options.spoolMaxBytes });
  if (spool.adopted.length > 0) notice(`found ${spool.adopted.length} spool file(s) left by earlier publishers: sending them first`);
  const routers = new Map<string, SessionRouter>();
  let memory: SpooledMessage[] = [];
  let toSpool: SpooledMessage[] = [];
  let ready = false;
  /** Until the first connection attempt has failed, events wait in memory: starting is not an outage. */
  let starting = true;
  let closing = false;
  let stopped = false;
  let published = 0;
  let duplicates = 0;
  let connection: NatsConnection | undefined;
  let client: JetStreamClient | undefined;
  let saidSpooling = false;
  let saidFull = false;
  /** Whoever waits (the pump, the connector) is woken by `signal`: new events, a connection, closing. */
  const waiters = new Set<() => void>();
  const signal = (): void => {
    for (const resume of [...waiters]) resume();
  };
  const waitForSignal = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });

  /** Queued spool lines go to disk: one write per turn of the event loop. */
  let flushScheduled = false;
  const flushToSpool = (): void => {
    flushScheduled = false;
    if (toSpool.length === 0) return;
    const before = spool.dropped;
    spool.append(toSpool);
    toSpool = [];
    if (spool.dropped > before && !saidFull) {
      saidFull = true;
      notice(
        `the spool is full (${spool.file}, --spool-max ${options.spoolMaxBytes} bytes): events are being dropped; the count is in the summary`,
      );
    }
  };
  const spill = (reason: string): void => {
    if (!saidSpooling) {
      saidSpooling = true;
      notice(`${reason}: events go to the spool (${spool.file}) until NATS answers`);
    }
    if (memory.length > 0) {
      toSpool = memory.concat(toSpool);
      memory = [];
    }
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushToSpool);
    }
  };
  const enqueue = (message: SpooledMessage): void => {
    const spooling = toSpool.length > 0 || !spool.empty;
    if (spooling || (!ready && !starting) || memory.length >= MEMORY_EVENTS) {
      toSpool.push(message);
      spill(ready ? "NATS is slower than the agent" : `NATS (${servers}) is not answering`);
    } else memory.push(message);
    signal();
  };

  const publishBatch = async (batch: readonly SpooledMessage[]): Promise<boolean> => {
    const js = client;
    if (js === undefined) return false;
    const timeout = options.ackTimeoutMs ?? 5000;
    const acks = await Promise.allSettled(batch.map((m) => js.publish(m.subject, m.data, { msgID: m.id, timeout })));
    const failed = acks.find((a): a is PromiseRejectedResult => a.status === "rejected");
    if (failed !== undefined) return false;
    for (const ack of acks as PromiseFulfilledResult<PubAck>[]) {
      if (ack.value.duplicate) duplicates++;
      else published++;
    }
    return true;
  };

  const pump = async (): Promise<void> => {
    let failures = 0;
    while (!stopped) {
      if (!ready) {
        await waitForSignal(MAX_BACKOFF_MS);
        continue;
      }
      flushToSpool();
      const fromSpool = !spool.empty;
      const batch = fromSpool ? spool.peek(BATCH_SIZE) : memory.slice(0, BATCH_SIZE);
      if (batch.length === 0) {
        if (closing) signal();
        await waitForSignal(MAX_BACKOFF_MS);
        continue;
      }
      if (await publishBatch(batch)) {
        failures = 0;
        if (fromSpool) spool.commit(batch.length);
        else if (memory[0] === batch[0]) memory = memory.slice(batch.length);
        if (spool.empty && toSpool.length === 0) saidSpooling = false;
        continue;
      }
      failures++;
      spill(`NATS (${servers}) did not acknowledge`);
      await waitForSignal(Math.min(100 * 2 ** failures, MAX_BACKOFF_MS));
    }
  };

  const start = async (): Promise<void> => {
    for (let attempt = 0; !stopped && connection === undefined; attempt++) {
      try {
        const connected = await connectNats(options.connection, { pingInterval: 2000, maxPingOut: 2 });
        // Closed while connecting: this connection would keep the process alive for nothing.
        if (stopped) return void (await connected.close().catch(() => {}));
        connection = connected;
      } catch (error) {
        if (attempt === 0) notice(`cannot connect to NATS (${servers}): ${reasonOf(error)}; retrying`);
        if (starting) {
          starting = false;
          spill(`NATS (${servers}) is not answering`);
        }
        await waitForSignal(Math.min(250 * 2 ** attempt, MAX_BACKOFF_MS * 2));
      }
    }
    if (connection === undefined) return;
    client = jetstream(connection);
    void watchStatus(connection);
    await becomeReady();
  };
  const becomeReady = async (): Promise<void> => {
    for (let attempt = 0; !stopped && connection !== undefined && !connection.isClosed(); attempt++) {
      try {
        await ensureStream(connection, options.stream);
        ready = true;
        starting = false;
        signal();
        return;
      } catch (error) {
        if (attempt === 0) notice(`cannot use the stream ${options.stream.name} on ${servers}: ${reasonOf(error)}; retrying`);
        if (starting) {
          starting = false;
          spill(`the stream ${options.stream.name} is not available`);
        }
        await waitForSignal(Math.min(250 * 2 ** attempt, MAX_BACKOFF_MS));
      }
    }
  };
  const watchStatus = async (nc: NatsConnection): Promise<void> => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "staleConnection") {
        ready = false;
        spill(`lost the connection to NATS (${servers})`);
      } else if (status.type === "reconnect") {
        notice(`reconnected to NATS (${servers}): sending what waited`);
        void becomeReady();
      }
    }
  };

  const pumping = pump();
  void start();

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
      closing = true;
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && !(memory.length === 0 && toSpool.length === 0 && spool.empty)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        signal();
      }
      stopped = true;
      signal();
      await pumping;
      // What was not sent is kept on disk for the next publisher on this host.
      if (memory.length > 0) spill("closing");
      flushToSpool();
      const waiting = spool.empty ? 0 : spool.countWaiting();
      spool.close();
      await connection?.close().catch(() => {});
      return {
        servers,
        stream: options.stream.name,
        published,
        duplicates,
        spooled: spool.appended,
        dropped: spool.dropped,
        waiting,
        spoolFile: waiting > 0 ? spool.file : null,
        adoptedFiles: spool.adopted.length,
      };
    },
  };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
