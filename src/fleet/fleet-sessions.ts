/**
 * The sessions of the JetStream stream as a source of `agentstream serve --nats` (docs/fleet.md,
 * "Watching: serve --nats"): listed beside the served files, opened through the same feeds.
 *
 * Discovery costs one message per session, not one per event: an ordered consumer over the
 * filter subject (`agentstream.>` by default) with the `last_per_subject` policy hands over the
 * last stored event of every subject, then every new event as it is published (so a new session
 * appears, and a session that completes says so, without asking again). A session's first event
 * and those up to its root `session.started` (agent, model, folder, start; at most OPENING_EVENTS)
 * are asked for once, a few sessions at a time.
 * The list's facts are the fold of those opening events and the root `session.completed` when it came
 * (its totals); a session open in a page shows the fold of every event instead, as files do.
 *
 * Opening a session reads its subject from the start through its own ordered consumer (on the one
 * shared connection) into a `SessionFeed`, live events appended as they are published; the feed
 * is released when nobody has watched it for a while. The server is never required: while it is
 * down or the stream is missing, the state says so, the sessions known stay listed, and the
 * client reconnects on its own.
 */
import { createHash } from "node:crypto";
import { DeliverPolicy, jetstream, type JetStreamClient, type JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { AgentEvent, JsonValue } from "../model/events.ts";
import { SessionFacts, type SessionInfo } from "../server/session-facts.ts";
import { releaseWhenUnwatched, SessionFeed } from "../server/session-feed.ts";
import type { SessionSource, SourceStatus } from "../server/session-source.ts";
import { redactValue } from "../stages/redact/redact-text.ts";
import { connectNats, describeServers, toConnectionOptions, type NatsConnectOptions } from "./connection.ts";
import { createMessageDecoder, readFleetOn, reasonOf, streamError } from "./reader.ts";
import { filterSubject, parseSubject, type SessionAddress } from "./subjects.ts";

export interface FleetSessionsOptions {
  readonly connection: NatsConnectOptions;
  readonly stream: string;
  readonly filter: Partial<SessionAddress>;
  /** Sessions whose last event is older than this are not listed (`serve --since`, default 24 h back). */
  readonly since: Date | undefined;
  /** Replace secrets again (messages are untrusted: anyone allowed to publish could have skipped redaction). */
  readonly redact: boolean;
  /** An open feed nobody watches is released after this long. @defaultValue 60000 */
  readonly releaseMs?: number;
  /** The wait before trying again while the stream cannot be read. @defaultValue 2000 */
  readonly retryMs?: number;
  /** Told each time the source becomes available or unavailable, or the reason changes (for a line on stderr). */
  readonly onStatus?: (status: SourceStatus) => void;
  /**
   * A session with no end is running only while its last event is this recent (`run` publishes a heartbeat every
   * 15 s while its agent is silent; a transcript published after the fact is dated by its own events). @defaultValue 120000
   */
  readonly quietMs?: number;
}

/** What the list knows of one session of the stream. */
interface FleetSession {
  readonly id: string;
  readonly subject: string;
  readonly address: SessionAddress;
  /** Its first events, up to its root `session.started` and its first prompt (undefined: not read yet). */
  opening: AgentEvent[] | undefined;
  completed: AgentEvent | undefined;
  lastSeq: number;
  /** When the server stored its last message (ms): what `--since` compares. */
  lastTime: number;
  /** When its last event happened (ms): its own time when it has one and that is earlier, else when it was stored. */
  lastActivity: number;
  /** When its end was stored (the root `session.completed`, or `run`'s exit notice after it); undefined: no end yet. */
  endedAt: number | undefined;
  firstAsked: boolean;
  /** Its last events were asked for its `session.completed` (an end seen without it: found at start-up after the exit notice). */
  closingAsked: boolean;
}

/** Sessions whose opening (or closing) events are asked for at once. */
const LOOKUPS_AT_ONCE = 16;
/** Events read at most to find a session's `session.started` and first prompt (a few hooks or a banner may come first). */
const OPENING_EVENTS = 16;
/** FleetSessionsOptions.quietMs's default. */
const QUIET_MS = 120_000;
/** After its end is stored, a session's last words (`run`'s exit and incomplete notices) are waited for this long. */
const ENDING_GRACE_MS = 2000;
/** How far before its end a session's `session.completed` is looked for when the end was found without it. */
const CLOSING_WINDOW_MS = 10_000;
/** Events read at most in that window. */
const CLOSING_EVENTS = 512;

/**
 * Starts connecting (in the background: a server that is down never delays the files) and returns
 * the source. A credential file that cannot be read is a usage error now, before anything starts.
 */
export function createFleetSessions(options: FleetSessionsOptions): SessionSource {
  toConnectionOptions(options.connection);
  return new FleetSessions(options);
}

class FleetSessions implements SessionSource {
  private readonly options: FleetSessionsOptions;
  private readonly servers: string;
  private readonly stop = new AbortController();
  private readonly sessions = new Map<string, FleetSession>();
  private readonly feeds = new Map<string, { feed: SessionFeed; release: () => void }>();
  /** Lookups of a session's opening or closing events, waiting; LOOKUPS_AT_ONCE run at a time. */
  private readonly lookups: ((js: JetStreamClient) => Promise<void>)[] = [];
  private lookupsInFlight = 0;
  private connection: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private state: SourceStatus["state"] = "connecting";
  private detail: string | null = null;
  private readonly decode = createMessageDecoder(undefined);

  constructor(options: FleetSessionsOptions) {
    this.options = options;
    this.servers = describeServers(options.connection.servers);
    void this.start();
  }

  list(): SessionInfo[] {
    const since = this.options.since?.getTime() ?? 0;
    const infos: SessionInfo[] = [];
    for (const session of this.sessions.values()) {
      if (session.lastTime < since) continue;
      const running = this.isRunning(session);
      if (!running && session.endedAt !== undefined && session.completed === undefined && !session.closingAsked)
        this.askClosingEvents(session);
      const open = this.feeds.get(session.id)?.feed;
      infos.push(open === undefined ? listedInfo(session, running) : open.info());
    }
    return infos;
  }

  async feed(id: string): Promise<SessionFeed | undefined> {
    const open = this.feeds.get(id);
    if (open !== undefined) return open.feed;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    const feed = new SessionFeed(id, { file: null, live: this.isRunning(session), host: session.address.host });
    const stop = new AbortController();
    const stopIdleCheck = releaseWhenUnwatched(feed, this.options.releaseMs ?? 60_000, () => release());
    const release = (): void => {
      stop.abort();
      stopIdleCheck();
      this.feeds.delete(id);
    };
    this.feeds.set(id, { feed, release });
    void this.fillFeed(session, feed, stop.signal);
    return feed;
  }

  status(): SourceStatus {
    return { kind: "nats", description: `${this.servers} stream ${this.options.stream}`, state: this.state, detail: this.detail };
  }

  close(): void {
    this.stop.abort();
    for (const { release } of this.feeds.values()) release();
    void this.connection?.close().catch(() => {});
  }

  private setState(state: SourceStatus["state"], detail: string | null): void {
    if (state === this.state && detail === this.detail) return;
    this.state = state;
    this.detail = detail;
    this.options.onStatus?.(this.status());
  }

  /** Connects (trying again while the server is down or refuses us), follows the connection's state, then discovers for as long as the source is open. */
  private async start(): Promise<void> {
    const connection = await this.connect();
    if (connection === undefined) return;
    this.connection = connection;
    this.js = jetstream(connection);
    void this.followConnection(connection);
    while (!this.stop.signal.aborted) {
      try {
        await this.discover(this.js);
      } catch (cause) {
        if (this.stop.signal.aborted) break;
        this.setState("unavailable", streamError(cause, this.options.stream, this.servers).message);
      }
      await sleep(this.options.retryMs ?? 2000, this.stop.signal);
    }
  }

  /**
   * The first connection, tried every `retryMs` until it works (each failure said in the state:
   * down, refused credentials); once connected, the client reconnects by itself. Undefined once closed.
   */
  private async connect(): Promise<NatsConnection | undefined> {
    while (!this.stop.signal.aborted) {
      try {
        const connection = await connectNats(this.options.connection, { name: "agentstream serve" });
        if (!this.stop.signal.aborted) return connection;
        await connection.close().catch(() => {});
      } catch (cause) {
        this.setState("unavailable", `cannot connect: ${reasonOf(cause)}`);
        await sleep(this.options.retryMs ?? 2000, this.stop.signal);
      }
    }
    return undefined;
  }

  private async followConnection(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === "disconnect") this.setState("unavailable", "the connection was lost; reconnecting");
      else if (status.type === "reconnect") this.setState("available", null);
    }
  }

  /** The last event of every subject, then every new one, until the source closes or the consumer fails. */
  private async discover(js: JetStreamClient): Promise<void> {
    const consumer = await js.consumers.get(this.options.stream, {
      filter_subjects: filterSubject(this.options.filter),
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    const messages = await consumer.consume({ max_messages: 512 });
    const stop = (): void => void messages.stop();
    this.stop.signal.addEventListener("abort", stop, { once: true });
    this.setState("available", null);
    try {
      for await (const message of messages) this.note(message);
    } finally {
      this.stop.signal.removeEventListener("abort", stop);
    }
  }

  private note(message: JsMsg): void {
    const address = parseSubject(message.subject);
    if (address === undefined) return;
    const id = fleetSessionId(message.subject);
    let session = this.sessions.get(id);
    if (session === undefined) {
      session = {
        id,
        subject: message.subject,
        address,
        opening: undefined,
        completed: undefined,
        lastSeq: -1,
        lastTime: 0,
        lastActivity: 0,
        endedAt: undefined,
        firstAsked: false,
        closingAsked: false,
      };
      this.sessions.set(id, session);
    }
    const stored = message.info.timestampNanos / 1e6;
    session.lastTime = Math.max(session.lastTime, stored);
    const event = this.decode(message.data, message.subject, message.seq);
    if (event !== undefined) {
      session.lastSeq = Math.max(session.lastSeq, event.seq);
      const own = event.time === undefined ? Number.NaN : Date.parse(event.time);
      session.lastActivity = Math.max(session.lastActivity, Number.isNaN(own) ? stored : Math.min(own, stored));
      if (isSessionEnd(event, session.address)) session.completed = this.clean(event);
      if (isSessionEnd(event, session.address) || isRunExit(event, session.address)) session.endedAt ??= stored;
    }
    if (session.opening === undefined && !session.firstAsked) {
      session.firstAsked = true;
      this.lookup(async (js) => {
        const events = await openingEvents(js, this.options.stream, session.subject, this.decode);
        if (events.length > 0) session.opening ??= events.map((event) => this.clean(event));
        else session.firstAsked = false; // asked again with the next event of the session
      });
    }
  }

  /** Queues a lookup; they run a few at a time (thousands of sessions found at start are thousands of lookups). */
  private lookup(task: (js: JetStreamClient) => Promise<void>): void {
    this.lookups.push(task);
    this.runLookups();
  }

  private runLookups(): void {
    while (this.lookupsInFlight < LOOKUPS_AT_ONCE && this.lookups.length > 0 && this.js !== undefined) {
      const next = this.lookups.shift() as (js: JetStreamClient) => Promise<void>;
      this.lookupsInFlight++;
      void next(this.js)
        .catch(() => {})
        .finally(() => {
          this.lookupsInFlight--;
          this.runLookups();
        });
    }
  }

  /**
   * Running: no end stored (or its last words may still come) and its last event recent. A session whose
   * events stopped is over even when its publisher never said so (a transcript published after the fact,
   * a publisher killed): nothing tells a reader of the stream that its publisher is still there but its events.
   */
  private isRunning(session: FleetSession): boolean {
    const now = Date.now();
    if (session.endedAt !== undefined) return now - session.endedAt < ENDING_GRACE_MS;
    return now - session.lastActivity < (this.options.quietMs ?? QUIET_MS);
  }

  /**
   * Reads a session's subject from its start into its feed, reading on after a failure, until it is over and
   * read to its last event (so `run`'s exit notice after the `session.completed` is shown too), or released.
   */
  private async fillFeed(session: FleetSession, feed: SessionFeed, signal: AbortSignal): Promise<void> {
    let next = 1;
    let lastSeq = -1;
    const reading = new AbortController();
    const stopReading = (): void => reading.abort();
    signal.addEventListener("abort", stopReading, { once: true });
    const settled = (): boolean => lastSeq >= session.lastSeq && !this.isRunning(session);
    const check = setInterval(() => settled() && stopReading(), 250);
    try {
      while (!reading.signal.aborted && !this.stop.signal.aborted) {
        try {
          if (this.connection === undefined) throw new Error("not connected yet");
          const since = next <= 1 ? ({ kind: "all" } as const) : ({ kind: "sequence", sequence: next } as const);
          const options = {
            stream: this.options.stream,
            filter: {},
            subject: session.subject,
            since,
            follow: true,
            signal: reading.signal,
          };
          for await (const { event, streamSequence } of readFleetOn(this.connection, this.servers, options)) {
            next = streamSequence + 1;
            feed.push(this.clean(event));
            lastSeq = Math.max(lastSeq, event.seq);
            if (settled()) break;
          }
        } catch {
          // The server is away or the stream is missing: the feed keeps what it has and reads on once it is back.
        }
        if (settled()) break;
        await sleep(this.options.retryMs ?? 2000, reading.signal);
      }
    } finally {
      clearInterval(check);
      signal.removeEventListener("abort", stopReading);
    }
    if (!signal.aborted && !this.stop.signal.aborted) feed.end();
  }

  /** Looks for the root `session.completed` among the events stored shortly before a session's end (its totals). */
  private askClosingEvents(session: FleetSession): void {
    session.closingAsked = true;
    const from = Math.min(session.endedAt ?? session.lastTime, session.lastTime) - CLOSING_WINDOW_MS;
    this.lookup(async (js) => {
      const events = await closingEvents(js, this.options.stream, session.subject, from, this.decode);
      const completed = events.filter((event) => isSessionEnd(event, session.address)).at(-1);
      if (completed !== undefined) session.completed ??= this.clean(completed);
    });
  }

  private clean(event: AgentEvent): AgentEvent {
    return this.options.redact ? (redactValue(event as unknown as JsonValue) as unknown as AgentEvent) : event;
  }
}

/** The root session's end (a subagent's events share its parent's subject, under their own session id). */
function isSessionEnd(event: AgentEvent, address: SessionAddress): boolean {
  return event.type === "session.completed" && (event.sessionId === undefined || event.sessionId === address.session);
}

/** `agentstream run`'s notice that the agent's process ended (published after the session's own end, when there is one). */
function isRunExit(event: AgentEvent, address: SessionAddress): boolean {
  return event.type === "notice" && event.kind === "exit" && (event.sessionId === undefined || event.sessionId === address.session);
}

/** The facts the list shows without reading the whole session: its first event and its end. */
function listedInfo(session: FleetSession, running: boolean): SessionInfo {
  const facts = new SessionFacts();
  for (const event of session.opening ?? []) facts.add(event);
  if (session.completed !== undefined && !(session.opening ?? []).some((event) => event.seq === session.completed?.seq))
    facts.add(session.completed);
  const info = facts.info(session.id, null, running, session.address.host);
  return {
    ...info,
    agent: info.agent ?? session.address.agent,
    events: session.lastSeq + 1,
  };
}

/** A subject's first events, up to its root `session.started`: an ordered consumer from the start, one batch, then gone. */
async function openingEvents(
  js: JetStreamClient,
  stream: string,
  subject: string,
  decode: ReturnType<typeof createMessageDecoder>,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  try {
    const consumer = await js.consumers.get(stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.All });
    const batch = await consumer.fetch({ max_messages: OPENING_EVENTS, expires: 2000 });
    for await (const message of batch) {
      const event = decode(message.data, message.subject, message.seq);
      if (event !== undefined) events.push(event);
      // Up to the root's start and its first prompt (the list's title): a stream-json session names no prompt, hence the cap.
      if (events.some(isRootStart) && events.some(isPrompt)) break;
      if (message.info.pending === 0) break;
    }
    batch.stop();
    await consumer.delete().catch(() => false);
  } catch {
    // Asked again with the session's next event.
  }
  return events;
}

function isRootStart(event: AgentEvent): boolean {
  return event.type === "session.started" && event.parentSessionId === undefined;
}

function isPrompt(event: AgentEvent): boolean {
  return event.type === "message.completed" && event.role === "user" && event.kind === "text";
}

/** A subject's events stored since `fromMs` (at most CLOSING_EVENTS): an ordered consumer from that time, then gone. */
async function closingEvents(
  js: JetStreamClient,
  stream: string,
  subject: string,
  fromMs: number,
  decode: ReturnType<typeof createMessageDecoder>,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  try {
    const consumer = await js.consumers.get(stream, {
      filter_subjects: subject,
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date(Math.max(0, fromMs)).toISOString(),
    });
    const batch = await consumer.fetch({ max_messages: CLOSING_EVENTS, expires: 2000 });
    for await (const message of batch) {
      const event = decode(message.data, message.subject, message.seq);
      if (event !== undefined) events.push(event);
      if (message.info.pending === 0) break;
    }
    batch.stop();
    await consumer.delete().catch(() => false);
  } catch {
    // Without its totals: the list says what the opening events said.
  }
  return events;
}

/** A session's id in the API: a hash of its subject (never the subject itself: ids are `[A-Za-z0-9_-]`, and shorter). */
export function fleetSessionId(subject: string): string {
  return `nats-${createHash("sha256").update(subject).digest("base64url").slice(0, 16)}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
