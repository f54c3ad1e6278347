/**
 * The publisher's outbox: every message not yet acknowledged, in order, in memory while NATS keeps
 * up and in the spool (./spool.ts) while it does not. Memory only ever holds messages older than
 * everything in the spool: once anything is in the spool, new messages go there too until it is
 * sent; when NATS stops answering, what memory held goes to the spool, except what was handed to
 * the pump, which is retried first (sent twice, it would only be dropped as a repeat by JetStream).
 *
 * The pump keeps a window of publishes in flight: `take` hands out the next messages after those
 * already handed out, `commit` forgets the oldest ones once NATS acknowledged them (always the
 * oldest first: an acknowledgement never removes a message while an older one waits), `rewind`
 * hands every unacknowledged one out again after a failure. Spool writes are gathered into one
 * write per turn of the event loop; spool reads are one read of READAHEAD messages.
 */
import type { Spool, SpooledMessage } from "./spool.ts";

/** Messages kept in memory while NATS keeps up; beyond this they go to the spool. */
const MEMORY_MESSAGES = 8192;
/** Messages read from the spool at once. */
const READAHEAD = 8192;
/** Sent messages at the head of memory are cut off in one splice once this many. */
const COMPACT_AT = 4096;

export interface Outbox {
  /** True when nothing waits. */
  readonly empty: boolean;
  /** True from the first message spooled until the spool is sent. */
  readonly spooling: boolean;
  /** Messages waiting in memory (not spooled). */
  readonly backlog: number;
  /** Adds a message; `live`: NATS is answering (or not yet tried), so memory may hold it. */
  add(message: SpooledMessage, live: boolean): void;
  /** Up to `max` of the oldest messages not yet handed out. */
  take(max: number): readonly SpooledMessage[];
  /** The oldest `count` messages handed out were acknowledged: forget them. */
  commit(count: number): void;
  /** Nothing handed out was acknowledged after all: hand it out again, oldest first. */
  rewind(): void;
  /** NATS stopped answering: memory goes to the spool (said once per outage, with `reason`). */
  spill(reason?: string): void;
  /** Writes what waits for the spool now (at close). */
  flush(): void;
}

export interface OutboxNotices {
  /** The outbox started using the spool. */
  spooling(reason: string): void;
  /** Everything spooled was sent. */
  caughtUp(): void;
  /** The spool was full: messages are being dropped. */
  full(): void;
}

export function createOutbox(spool: Spool, notices: OutboxNotices): Outbox {
  return new OutboxState(spool, notices);
}

class OutboxState implements Outbox {
  /** Messages from `memoryHead` on wait; the first `memoryHanded` of them are in flight. */
  private memory: SpooledMessage[] = [];
  private memoryHead = 0;
  private memoryHanded = 0;
  /** The spool's oldest messages as read (not yet committed from `readHead` on); the first `readHanded` are in flight. */
  private readahead: SpooledMessage[] = [];
  private readHead = 0;
  private readHanded = 0;
  private toSpool: SpooledMessage[] = [];
  private flushScheduled = false;
  private spoolingNow = false;
  private saidFull = false;

  private readonly spool: Spool;
  private readonly notices: OutboxNotices;

  constructor(spool: Spool, notices: OutboxNotices) {
    this.spool = spool;
    this.notices = notices;
  }

  get empty(): boolean {
    return this.memory.length === this.memoryHead && this.toSpool.length === 0 && this.spool.empty;
  }

  get spooling(): boolean {
    return this.spoolingNow;
  }

  get backlog(): number {
    return this.memory.length - this.memoryHead;
  }

  add(message: SpooledMessage, live: boolean): void {
    const inSpool = this.toSpool.length > 0 || !this.spool.empty;
    if (inSpool || !live || this.memory.length - this.memoryHead >= MEMORY_MESSAGES) {
      this.toSpool.push(message);
      this.spill(
        !live ? "NATS is not answering" : inSpool ? "older events wait in the spool and go first" : "NATS is slower than the agent",
      );
    } else this.memory.push(message);
  }

  take(max: number): readonly SpooledMessage[] {
    const start = this.memoryHead + this.memoryHanded;
    // Memory holds messages only when they are older than everything in the spool.
    if (start < this.memory.length) {
      const messages = this.memory.slice(start, start + max);
      this.memoryHanded += messages.length;
      return messages;
    }
    this.writeSpool();
    let from = this.readHead + this.readHanded;
    if (from >= this.readahead.length) {
      // The next read starts where the spool's commits are: only once everything read was acknowledged.
      if (this.readHanded > 0) return [];
      this.readahead = this.spool.peek(READAHEAD);
      this.readHead = 0;
      from = 0;
    }
    const messages = this.readahead.slice(from, from + max);
    this.readHanded += messages.length;
    return messages;
  }

  commit(count: number): void {
    const fromMemory = Math.min(count, this.memoryHanded);
    this.memoryHead += fromMemory;
    this.memoryHanded -= fromMemory;
    if (this.memoryHead >= COMPACT_AT || this.memoryHead === this.memory.length) {
      this.memory = this.memory.slice(this.memoryHead);
      this.memoryHead = 0;
    }
    const fromSpool = Math.min(count - fromMemory, this.readHanded);
    if (fromSpool === 0) return;
    this.spool.commit(fromSpool);
    this.readHead += fromSpool;
    this.readHanded -= fromSpool;
    if (this.readHead === this.readahead.length) {
      this.readahead = [];
      this.readHead = 0;
    }
    if (this.spoolingNow && this.spool.empty && this.toSpool.length === 0) {
      this.spoolingNow = false;
      this.notices.caughtUp();
    }
  }

  rewind(): void {
    this.memoryHanded = 0;
    this.readHanded = 0;
  }

  spill(reason?: string): void {
    if (!this.spoolingNow && reason !== undefined) this.notices.spooling(reason);
    this.spoolingNow = true;
    // What is in flight stays in memory, to be retried before anything in the spool (it is older). The
    // rest goes to the spool only while the spool is empty: appended behind older spooled messages (what
    // was sent from the spool after it), it would be sent after them.
    const kept = this.memoryHead + this.memoryHanded;
    if (this.memory.length > kept && this.spool.empty) {
      this.toSpool = this.memory.slice(kept).concat(this.toSpool);
      this.memory = this.memory.slice(this.memoryHead, kept);
      this.memoryHead = 0;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.writeSpool());
    }
  }

  flush(): void {
    this.writeSpool();
    // At close: what memory still holds goes first in the spool, before what was spooled after it.
    this.spool.prepend(this.memory.slice(this.memoryHead));
    this.memory = [];
    this.memoryHead = 0;
    this.memoryHanded = 0;
  }

  private writeSpool(): void {
    this.flushScheduled = false;
    if (this.toSpool.length === 0) return;
    const dropped = this.spool.dropped;
    this.spool.append(this.toSpool);
    this.toSpool = [];
    if (this.spool.dropped > dropped && !this.saidFull) {
      this.saidFull = true;
      this.notices.full();
    }
  }
}
