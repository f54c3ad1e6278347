/**
 * The publisher's outbox: every message not yet acknowledged, in order, in memory while NATS keeps
 * up and in the spool (./spool.ts) while it does not. Memory only ever holds messages older than
 * everything in the spool: once anything is in the spool, new messages go there too until it is
 * sent; when NATS stops answering, what memory held goes to the spool, except the batch in
 * flight, which is retried first (sent twice, it would only be dropped as a repeat by JetStream).
 * Spool writes are gathered into one write per turn of the event loop.
 */
import type { Spool, SpooledMessage } from "./spool.ts";

/** Messages kept in memory while NATS keeps up; beyond this they go to the spool. */
const MEMORY_MESSAGES = 8192;

export interface Outbox {
  /** True when nothing waits. */
  readonly empty: boolean;
  /** Adds a message; `live`: NATS is answering (or not yet tried), so memory may hold it. */
  add(message: SpooledMessage, live: boolean): void;
  /** The oldest messages, up to `max`, and `sent()` to forget them once NATS has them. */
  next(max: number): { readonly messages: readonly SpooledMessage[]; sent(): void };
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
  let memory: SpooledMessage[] = [];
  /** The first messages of memory handed to the pump and not yet acknowledged: they stay first. */
  let inFlight = 0;
  let toSpool: SpooledMessage[] = [];
  let flushScheduled = false;
  let spooling = false;
  let saidFull = false;
  const flush = (): void => {
    flushScheduled = false;
    if (toSpool.length === 0) return;
    const dropped = spool.dropped;
    spool.append(toSpool);
    toSpool = [];
    if (spool.dropped > dropped && !saidFull) {
      saidFull = true;
      notices.full();
    }
  };
  const spill = (reason?: string): void => {
    if (!spooling && reason !== undefined) notices.spooling(reason);
    spooling = true;
    // What is in flight stays in memory, to be retried before anything in the spool (it is older).
    if (memory.length > inFlight) {
      toSpool = memory.slice(inFlight).concat(toSpool);
      memory = memory.slice(0, inFlight);
    }
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };
  return {
    get empty() {
      return memory.length === 0 && toSpool.length === 0 && spool.empty;
    },
    add(message, live) {
      const inSpool = toSpool.length > 0 || !spool.empty;
      if (inSpool || !live || memory.length >= MEMORY_MESSAGES) {
        toSpool.push(message);
        spill(!live ? "NATS is not answering" : inSpool ? "older events wait in the spool and go first" : "NATS is slower than the agent");
      } else memory.push(message);
    },
    next(max) {
      flush();
      // Memory holds messages only when they are older than everything in the spool.
      if (memory.length > 0) {
        const messages = memory.slice(0, max);
        inFlight = messages.length;
        return {
          messages,
          sent() {
            memory = memory.slice(messages.length);
            inFlight = 0;
          },
        };
      }
      const messages = spool.peek(max);
      return {
        messages,
        sent() {
          spool.commit(messages.length);
          if (spooling && spool.empty && toSpool.length === 0) {
            spooling = false;
            notices.caughtUp();
          }
        },
      };
    },
    spill,
    flush() {
      flush();
      // At close: what memory still holds goes first in the spool, before what was spooled after it.
      spool.prepend(memory);
      memory = [];
      inFlight = 0;
    },
  };
}
