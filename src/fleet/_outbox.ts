/**
 * The publisher's outbox: every message not yet acknowledged, in order, in memory while NATS keeps
 * up and in the spool (./spool.ts) while it does not. Never both at once in the wrong order: once
 * anything is in the spool, new messages go there too until it is sent, and what memory held goes
 * to the spool first. Spool writes are gathered into one write per turn of the event loop.
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
    if (memory.length > 0) {
      toSpool = memory.concat(toSpool);
      memory = [];
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
        spill(live ? "NATS is slower than the agent" : "NATS is not answering");
      } else memory.push(message);
    },
    next(max) {
      flush();
      if (!spool.empty) {
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
      }
      const messages = memory.slice(0, max);
      return {
        messages,
        sent() {
          // Moved to the spool meanwhile (an outage began): they are sent from there again, and
          // JetStream drops the repeats by their message ids.
          if (memory[0] === messages[0]) memory = memory.slice(messages.length);
        },
      };
    },
    spill,
    flush() {
      if (memory.length > 0) spill();
      flush();
    },
  };
}
