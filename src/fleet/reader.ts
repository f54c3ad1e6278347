/**
 * The fleet reader: the events of all or some sessions from the JetStream stream, from any point
 * (docs/fleet.md). Without a durable name it uses an ordered consumer (ephemeral: the server
 * forgets it when the reader goes); with one, a durable pull consumer with explicit acks, which
 * keeps its place between runs, so a reader that stopped or fell behind resumes where it was.
 * Either way the stream holds the events: a slow reader never makes a publisher wait.
 *
 * Messages are untrusted input (anyone allowed to publish on the subjects could have written
 * them): each is read by the framing core (depth, prototype keys, big integers) and checked
 * against the event schema; what fails is reported as an Issue and passed over.
 */
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type Consumer,
  type ConsumerConfig,
  type JsMsg,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { AgentStreamError, type Issue } from "../errors.ts";
import { createNdjsonParser, type InputRecord } from "../framing/ndjson/create-ndjson-parser.ts";
import type { AgentEvent } from "../model/events.ts";
import { validateEvent } from "../validation/validate-event.ts";
import { connectNats, describeServers, toConnectionOptions, type NatsConnectOptions } from "./connection.ts";
import { filterSubject, parseSubject, type SessionAddress } from "./subjects.ts";

/** Where reading starts. */
export type StartPoint =
  | { readonly kind: "new" }
  | { readonly kind: "all" }
  | { readonly kind: "sequence"; readonly sequence: number }
  | { readonly kind: "time"; readonly time: Date };

export interface FleetReaderOptions {
  readonly connection: NatsConnectOptions;
  readonly stream: string;
  readonly filter: Partial<SessionAddress>;
  /** @defaultValue new events only; a durable consumer that exists resumes where it was instead */
  readonly since?: StartPoint;
  /** The name of a durable consumer: created when missing, resumed when it exists. */
  readonly durable?: string;
  /** false: stop once every event stored when reading began was read (`tail --no-follow`). */
  readonly follow: boolean;
  /** Ends the reading (Ctrl-C). */
  readonly signal?: AbortSignal;
  readonly onIssue?: (issue: Issue) => void;
}

/** One event as read, with where it was published. */
export interface FleetEvent {
  readonly event: AgentEvent;
  readonly subject: string;
  readonly address: SessionAddress;
  /** Its position in the stream (what `--since <seq>` takes). */
  readonly streamSequence: number;
}

/** Reads events until the signal aborts (or, without `follow`, until it has caught up). */
export async function* readFleet(options: FleetReaderOptions): AsyncGenerator<FleetEvent> {
  const servers = describeServers(options.connection.servers);
  toConnectionOptions(options.connection); // a credential file that cannot be read: a usage error, not a server down
  let connection: NatsConnection;
  try {
    connection = await connectNats(options.connection, { maxReconnectAttempts: -1 });
  } catch (cause) {
    throw new AgentStreamError("io", `cannot connect to NATS (${servers}): ${reasonOf(cause)}`, { cause });
  }
  try {
    yield* readFleetOn(connection, servers, options);
  } finally {
    await connection.close().catch(() => {});
  }
}

/** Where and what to read on a connection already open (one connection shared by several readers: `serve --nats`). */
export type FleetReadOptions = Omit<FleetReaderOptions, "connection"> & {
  /** One subject exactly, instead of the filter's (a session as listed: its subject as published). */
  readonly subject?: string;
};

/** {@link readFleet} on an open connection (left open); `servers` is what errors name. */
export async function* readFleetOn(connection: NatsConnection, servers: string, options: FleetReadOptions): AsyncGenerator<FleetEvent> {
  const consumer = await openConsumer(connection, options, servers);
  const info = await consumer.info();
  if (!options.follow && info.num_pending === 0) return;
  const decode = createMessageDecoder(options.onIssue);
  const messages = options.durable === undefined ? readOrdered(consumer, options.signal) : readDurable(consumer, options);
  const isRepeat = createRepeatFilter(options.onIssue);
  for await (const message of messages) {
    const event = decode(message.data, message.subject, message.seq);
    const address = parseSubject(message.subject);
    if (event !== undefined && address !== undefined && !isRepeat(message.subject, event.seq, message.seq))
      yield { event, subject: message.subject, address, streamSequence: message.seq };
    if (!options.follow && message.info.pending === 0) break;
  }
}

/** An ordered consumer: the client re-creates it at the right place after any loss, so nothing is skipped or repeated. */
async function* readOrdered(consumer: Consumer, signal: AbortSignal | undefined): AsyncGenerator<JsMsg> {
  const messages = await consumer.consume({ max_messages: 512 });
  const stop = (): void => void messages.stop();
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted === true) stop();
  try {
    yield* messages;
  } finally {
    signal?.removeEventListener("abort", stop);
    await messages.close().catch(() => {});
  }
}

/** Messages asked of the server at once by a durable reader. */
const DURABLE_BATCH = 256;

/**
 * A durable consumer, in batches: each message is acknowledged once the caller has taken it and
 * asks for the next (or stops); messages fetched but not yet taken when the reader stops are
 * handed back (nak), so the next reader of this durable gets them at once, in order.
 */
async function* readDurable(consumer: Consumer, options: FleetReadOptions): AsyncGenerator<JsMsg> {
  const signal = options.signal;
  while (signal?.aborted !== true) {
    const batch = await consumer.fetch({ max_messages: DURABLE_BATCH, expires: 2000 });
    const waiting: JsMsg[] = [];
    let fetched = false;
    let wake: (() => void) | undefined;
    const stop = (): void => void batch.stop();
    signal?.addEventListener("abort", stop, { once: true });
    void (async () => {
      for await (const message of batch) {
        waiting.push(message);
        wake?.();
      }
      fetched = true;
      wake?.();
    })();
    let received = 0;
    try {
      for (;;) {
        const message = waiting.shift();
        if (message === undefined) {
          if (fetched) break;
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        received++;
        try {
          yield message;
        } finally {
          message.ack();
        }
      }
    } finally {
      signal?.removeEventListener("abort", stop);
      batch.stop();
      for (const message of waiting) message.nak();
    }
    if (!options.follow && received === 0 && (await consumer.info()).num_pending === 0) return;
  }
}

async function openConsumer(connection: NatsConnection, options: FleetReadOptions, servers: string): Promise<Consumer> {
  const js = jetstream(connection);
  const start = startConfig(options.since ?? { kind: "new" });
  const filter = options.subject ?? filterSubject(options.filter);
  try {
    if (options.durable === undefined) return await js.consumers.get(options.stream, { filter_subjects: filter, ...start });
    const manager = await jetstreamManager(connection);
    const exists = await manager.consumers.info(options.stream, options.durable).then(
      () => true,
      (error: unknown) => {
        if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return false;
        throw error;
      },
    );
    if (!exists)
      await manager.consumers.add(options.stream, {
        durable_name: options.durable,
        ack_policy: AckPolicy.Explicit,
        filter_subject: filter,
        ...start,
      });
    return await js.consumers.get(options.stream, options.durable);
  } catch (cause) {
    throw streamError(cause, options.stream, servers);
  }
}

/** What to say when a stream cannot be read: missing (nothing published yet) or any other failure. */
export function streamError(cause: unknown, stream: string, servers: string): AgentStreamError {
  if (cause instanceof JetStreamApiError && cause.code === JetStreamApiCodes.StreamNotFound)
    return new AgentStreamError("io", `no stream ${stream} on NATS (${servers}): nothing was published there yet`, { cause });
  return new AgentStreamError("io", `cannot read the stream ${stream} on NATS (${servers}): ${reasonOf(cause)}`, { cause });
}

function startConfig(since: StartPoint): Pick<ConsumerConfig, "deliver_policy" | "opt_start_seq" | "opt_start_time"> {
  switch (since.kind) {
    case "new":
      return { deliver_policy: DeliverPolicy.New };
    case "all":
      return { deliver_policy: DeliverPolicy.All };
    case "sequence":
      return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: since.sequence };
    case "time":
      return { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since.time.toISOString() };
  }
}

/**
 * Publishers send each session in `seq` order, so an event whose `seq` is not past the last one
 * read on its subject is a repeat: stored twice (re-sent after the duplicate window) or delivered
 * again (a durable consumer after a crash). It is skipped and said, so readers see each event once.
 */
function createRepeatFilter(onIssue: ((issue: Issue) => void) | undefined): (subject: string, seq: number, sequence: number) => boolean {
  const last = new Map<string, number>();
  return (subject, seq, sequence) => {
    const before = last.get(subject);
    if (before !== undefined && seq <= before) {
      onIssue?.({
        code: "out-of-order",
        severity: "warning",
        message: `event seq ${seq} came after seq ${before} of the same session: a repeat, skipped`,
        file: subject,
        line: sequence,
      });
      return true;
    }
    last.set(subject, seq);
    return false;
  };
}

/** Message bytes → an event, through the framing core and the schema; problems become issues named after the subject and stream sequence. */
export function createMessageDecoder(
  onIssue: ((issue: Issue) => void) | undefined,
): (data: Uint8Array, subject: string, sequence: number) => AgentEvent | undefined {
  const read: { record?: InputRecord | undefined } = {};
  let where = { file: "", line: 0 };
  const parser = createNdjsonParser(
    {
      onRecord(r) {
        read.record ??= r;
      },
      onIssue: (issue) => onIssue?.({ ...issue, ...where }),
    },
    { framing: "ndjson" },
  );
  return (data, subject, sequence) => {
    read.record = undefined;
    where = { file: subject, line: sequence };
    parser.feed(data);
    parser.feed("\n");
    const record = read.record as InputRecord | undefined; // set by onRecord during feed
    if (record?.kind !== "json") {
      if (record !== undefined)
        onIssue?.({ code: "non-json-line", severity: "warning", message: "a message that is not a JSON event was passed over", ...where });
      return undefined;
    }
    const issues = validateEvent(record.value, sequence);
    if (issues.length > 0) {
      for (const issue of issues) onIssue?.({ ...issue, ...where });
      return undefined;
    }
    // Checked against the event schema just above.
    return record.value as unknown as AgentEvent;
  };
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
