/**
 * The bridge from the push side (the child's pipes) to the pull side (`for await` over events).
 * The producer is told when the consumer falls behind, so it can pause the agent's stdout.
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
  let items: T[] = [];
  let head = 0;
  let closed = false;
  let iterating = false;
  let full = false;
  let abandoned = false;
  let wake: (() => void) | undefined;

  const waiting = (): number => items.length - head;
  return {
    push(item) {
      if (abandoned) return; // the consumer left the loop: nobody will read these
      items.push(item);
      if (iterating && !full && waiting() > options.highWater) {
        full = true;
        options.onFull();
      }
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      // Only one consumer: the events are handed out once.
      if (iterating) throw new Error("runAgent events can be iterated only once");
      iterating = true;
      let done = false;
      try {
        for (;;) {
          while (head < items.length) {
            const item = items[head] as T;
            items[head++] = undefined as T;
            yield item;
          }
          items = [];
          head = 0;
          if (full) {
            full = false;
            options.onDrained();
          }
          if (closed) {
            done = true;
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        if (!done) {
          // `break` out of the loop: stop holding events, and never leave the producer paused.
          abandoned = true;
          items = [];
          head = 0;
          if (full) {
            full = false;
            options.onDrained();
          }
        }
      }
    },
  };
}
