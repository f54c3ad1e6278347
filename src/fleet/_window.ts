/**
 * The publisher's window of publishes in flight on one connection: JetStream's asynchronous publish.
 *
 * Each message goes out as a core NATS publish with its message id (`Nats-Msg-Id`) and a reply
 * subject of our own (`<inbox>.<token>`); JetStream answers there with its acknowledgement (the
 * PubAck JSON, or an error). One subscription takes every acknowledgement, so a publish costs one
 * write and no timer, promise or request object. (`JetStreamClient.publish` is the same
 * request/reply one message at a time, with a promise, a timer and an error object per message:
 * several times the CPU per event, docs/fleet.md.)
 *
 * The window is in send order, and `settled` hands back only its acknowledged head: an
 * acknowledgement that comes before an older one is kept until that one is in, so a message is
 * never taken off the spool while an older one may still have to be sent again. A rejected
 * publish, a silent server past the timeout or a lost connection fails the whole window: the
 * caller sends everything unacknowledged again (a repeat is dropped by JetStream's duplicate window).
 * A lost connection loses the tail of what was written to it: nothing newer may go out on the next
 * connection before that tail is sent again, or it would be stored ahead of it. So a window belongs
 * to one generation of the link (./_link.ts), and the pump never publishes while the link is down
 * (the client would buffer it and send it first on reconnecting).
 */
import { createInbox, headers, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import type { SpooledMessage } from "./spool.ts";

/** How an acknowledgement settled a publish. */
const PENDING = 0;
const STORED = 1;
const DUPLICATE = 2;
type Ack = typeof PENDING | typeof STORED | typeof DUPLICATE;

interface PubAckWire {
  readonly stream?: string;
  readonly seq?: number;
  readonly duplicate?: boolean;
  readonly error?: { readonly code?: number; readonly description?: string };
}

export interface Settled {
  /** Acknowledged messages at the head of the window, now out of it. */
  readonly stored: number;
  readonly duplicates: number;
}

export class PublishWindow {
  private readonly inbox: string;
  private readonly subscription: Subscription;
  /** The token of `acks[0]`; tokens go up by one per publish. */
  private baseToken = 0;
  private nextToken = 0;
  private acks: Ack[] = [];
  private head = 0;
  private sentAt: number[] = [];
  private failure: string | undefined;
  private readonly decoder = new TextDecoder();

  readonly connection: NatsConnection;
  /** The link's generation it publishes in: a window never outlives a lost connection. */
  readonly generation: number;
  private readonly onAck: () => void;

  constructor(connection: NatsConnection, generation: number, onAck: () => void) {
    this.connection = connection;
    this.generation = generation;
    this.onAck = onAck;
    this.inbox = createInbox();
    this.subscription = connection.subscribe(`${this.inbox}.*`, {
      callback: (error, message) => {
        if (error !== null) this.fail(error.message);
        else this.acknowledge(message.subject, message.data, message.headers?.code ?? 0);
      },
    });
  }

  /** Publishes waiting for their acknowledgement. */
  get pending(): number {
    return this.acks.length - this.head;
  }

  /** Why the window failed (everything in it must be sent again), or undefined. */
  get failed(): string | undefined {
    return this.failure;
  }

  /** When the oldest publish still waiting was sent. */
  get oldestSentAt(): number | undefined {
    return this.sentAt[this.head];
  }

  send(messages: readonly SpooledMessage[]): void {
    const now = Date.now();
    for (const message of messages) {
      const h = headers();
      h.set("Nats-Msg-Id", message.id);
      this.connection.publish(message.subject, message.data, { reply: `${this.inbox}.${this.nextToken++}`, headers: h });
      this.acks.push(PENDING);
      this.sentAt.push(now);
    }
  }

  /** Takes the acknowledged head of the window out of it. */
  settled(): Settled {
    let stored = 0;
    let duplicates = 0;
    while (this.head < this.acks.length && this.acks[this.head] !== PENDING) {
      if (this.acks[this.head] === DUPLICATE) duplicates++;
      else stored++;
      this.head++;
    }
    if (this.head >= 4096 || this.head === this.acks.length) {
      this.baseToken += this.head;
      this.acks = this.acks.slice(this.head);
      this.sentAt = this.sentAt.slice(this.head);
      this.head = 0;
    }
    return { stored, duplicates };
  }

  fail(reason: string): void {
    this.failure ??= reason;
    this.onAck();
  }

  /** Stops taking acknowledgements (the window is dropped; its publishes may still be stored: a retry is a repeat). */
  close(): void {
    if (!this.connection.isClosed()) this.subscription.unsubscribe();
  }

  private acknowledge(subject: string, data: Uint8Array, status: number): void {
    const index = Number(subject.slice(this.inbox.length + 1)) - this.baseToken;
    // An answer to a publish of a window failed before (sent again since): not ours to count.
    if (!(index >= this.head && index < this.acks.length) || this.failure !== undefined) return;
    if (status === 503) return this.fail("no JetStream stream takes these subjects (no responders)");
    let ack: PubAckWire;
    try {
      ack = JSON.parse(this.decoder.decode(data)) as PubAckWire;
    } catch {
      return this.fail("an acknowledgement that is not JSON");
    }
    if (ack.error !== undefined || typeof ack.stream !== "string")
      return this.fail(`JetStream refused an event: ${ack.error?.description ?? "no stream in the acknowledgement"}`);
    this.acks[index] = ack.duplicate === true ? DUPLICATE : STORED;
    if (index === this.head) this.onAck();
  }
}
