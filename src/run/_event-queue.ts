/**
 * The bridge from the push side (the child's pipes) to the pull side (`for await` over events).
 * The producer is told when the consumer falls behind, so it can pause the agent's stdout.
 *
 * A hand-written iterator, not an async generator: a generator's `yield` awaits each event and
 * resumes the generator, three promise jobs an event where this takes one (a third of the
 * iteration's cost on a flood of 25,000 events).
 */
export interface EventQueue<T> extends AsyncIterable<T> {
  push(item: T): void;
  close(): void;
}

export interface EventQueueOptions {
  /** Above this many waiting items, once someone iterates, `onFull` is called. */
  readonly highWater: number;
  onFull(): void;
  /** Called when the waiting items have all been taken after `onFull`. */
  onDrained(): void;
}

export function createEventQueue<T>(options: EventQueueOptions): EventQueue<T> {
  return new EventQueueState<T>(options);
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** The waiting items (taken from `head` on), whether anyone iterates, and how the iteration ended. */
class EventQueueState<T> implements EventQueue<T> {
  readonly options: EventQueueOptions;
  items: T[] = [];
  head = 0;
  closed = false;
  iterating = false;
  full = false;
  /** The consumer left the loop: nobody will read what comes. */
  abandoned = false;
  /** Every item was handed out and the queue closed. */
  finished = false;
  wake: (() => void) | undefined;

  constructor(options: EventQueueOptions) {
    this.options = options;
  }

  push(item: T): void {
    if (this.abandoned) return;
    this.items.push(item);
    if (this.iterating && !this.full && this.items.length - this.head > this.options.highWater) {
      this.full = true;
      this.options.onFull();
    }
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    // Only one consumer: the events are handed out once.
    if (this.iterating) return { next: () => Promise.reject(new Error("runAgent events can be iterated only once")) };
    this.iterating = true;
    return { next: () => this.next(), return: () => Promise.resolve(this.leave()) };
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head] as T;
      this.items[this.head++] = undefined as T;
      return Promise.resolve({ value, done: false });
    }
    this.items = [];
    this.head = 0;
    if (this.full) {
      this.full = false;
      this.options.onDrained();
    }
    if (this.closed || this.abandoned) {
      this.finished = true;
      return Promise.resolve(DONE);
    }
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    }).then(() => {
      this.wake = undefined;
      return this.next();
    });
  }

  /** `break` out of the loop: stop holding events, and never leave the producer paused. */
  leave(): IteratorReturnResult<undefined> {
    if (this.finished || this.abandoned) return DONE;
    this.abandoned = true;
    this.items = [];
    this.head = 0;
    if (this.full) {
      this.full = false;
      this.options.onDrained();
    }
    return DONE;
  }
}
