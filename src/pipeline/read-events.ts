/**
 * Thin async adapters over the synchronous reader: an async generator for Node streams, Web
 * ReadableStreams, async iterables and strings, and a Web TransformStream (`AgentEventStream`).
 */
import { AgentStreamError } from "../errors.ts";
import type { AgentEvent } from "../model/events.ts";
import { createEventReader, type EventReader, type ReadOptions } from "./create-event-reader.ts";

/** Anything agentstream can read from. */
export type EventSourceInput =
  | string
  | Uint8Array
  | AsyncIterable<string | Uint8Array>
  | Iterable<string | Uint8Array>
  | ReadableStream<string | Uint8Array>;

/**
 * Reads normalized events from an agent's output: `process.stdin`, a file stream, a fetch body, a string.
 * @example
 * for await (const event of readEvents(process.stdin, { dialect: "auto" })) console.log(event.type);
 */
export function readEvents(source: EventSourceInput, options: ReadOptions = {}): AsyncGenerator<AgentEvent, ReaderSummary> {
  // A hand-written async iterator rather than an `async function*`: every `yield` of an async
  // generator costs a promise and a trip through its internal queue, which dominated the cost per
  // event. Here `next()` hands out queued events at once and only awaits the source when the
  // queue is empty; events still come out as soon as their line ends.
  let queue: AgentEvent[] = [];
  let head = 0;
  const reader = createEventReader({ onEvent: (event) => queue.push(event) }, options);
  const chunks = chunksOf(source);
  let ended = false;
  let closed = false;

  async function fill(): Promise<void> {
    while (head >= queue.length && !ended) {
      queue = [];
      head = 0;
      const { done, value } = await chunks.next();
      if (done === true) {
        reader.end();
        ended = true;
      } else reader.feed(value);
    }
  }

  const iterator: AsyncGenerator<AgentEvent, ReaderSummary> = {
    async next(): Promise<IteratorResult<AgentEvent, ReaderSummary>> {
      if (closed) return { done: true, value: summaryOf(reader) };
      if (head >= queue.length) await fill();
      if (head < queue.length) return { done: false, value: queue[head++] as AgentEvent };
      closed = true;
      return { done: true, value: summaryOf(reader) };
    },
    async return(value?: ReaderSummary | PromiseLike<ReaderSummary>): Promise<IteratorResult<AgentEvent, ReaderSummary>> {
      // The consumer stopped early (break): release the source (closes file handles, cancels streams).
      closed = true;
      await chunks.return(undefined);
      return { done: true, value: (await value) ?? summaryOf(reader) };
    },
    async throw(error?: unknown): Promise<IteratorResult<AgentEvent, ReaderSummary>> {
      closed = true;
      await chunks.return(undefined);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return iterator;
}

/** What `readEvents` returns when it is done (the generator's return value). */
export interface ReaderSummary {
  /** The last session's dialect. */
  readonly dialect: string | undefined;
  readonly stats: EventReader["stats"];
  /** Secrets replaced, by kind (empty unless `redact` is on). */
  readonly redactions: EventReader["redactions"];
  /** Sessions read: more than 1 when the input held concatenated sessions. */
  readonly sessions: number;
}

function summaryOf(reader: EventReader): ReaderSummary {
  return { dialect: reader.dialect, stats: reader.stats, redactions: reader.redactions, sessions: reader.sessions };
}

/** Normalizes every supported source into an async iterable of chunks. */
async function* chunksOf(source: EventSourceInput): AsyncGenerator<string | Uint8Array> {
  if (typeof source === "string" || source instanceof Uint8Array) {
    yield source;
    return;
  }
  if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof source === "object" && source !== null && (Symbol.asyncIterator in source || Symbol.iterator in source)) {
    yield* source as AsyncIterable<string | Uint8Array>;
    return;
  }
  throw new AgentStreamError("invalid-option", "readEvents needs a string, bytes, an (async) iterable of chunks, or a ReadableStream");
}

/**
 * A Web TransformStream from text or bytes to events; works in browsers, Deno and Node.
 * @example
 * const events = response.body.pipeThrough(new AgentEventStream({ dialect: "codex" }));
 */
export class AgentEventStream extends TransformStream<string | Uint8Array, AgentEvent> {
  constructor(options: ReadOptions = {}) {
    let reader: EventReader | undefined;
    super({
      start(controller) {
        reader = createEventReader({ onEvent: (event) => controller.enqueue(event) }, options);
      },
      transform(chunk) {
        reader?.feed(chunk);
      },
      flush() {
        reader?.end();
      },
    });
  }
}
