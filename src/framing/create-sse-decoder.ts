/**
 * Server-Sent Events framing, read side: text in, events out, as the WHATWG HTML standard's
 * "event stream interpretation" says (https://html.spec.whatwg.org/multipage/server-sent-events.html).
 * Lines end with CRLF, LF or CR; `data:` lines join with "\n"; `event:` and `id:` name the event;
 * a line starting with `:` is a comment; a blank line ends the event. Synchronous and free of I/O,
 * like the NDJSON framer: it runs in browsers too.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `data:` lines joined with "\n". */
  readonly data: string;
  /** The `event:` field, when the event named one. */
  readonly event?: string;
  /** The last `id:` seen so far (it carries over to later events, as in the standard). */
  readonly id?: string;
  /** 1-based line of the event's first `data:` line (where its record starts). */
  readonly line: number;
}

export interface SseCallbacks {
  /** Called once per event, when its blank line arrives (or at `end`). */
  onEvent(event: SseEvent): void;
  /** Called for each comment line (`: text`), without the colon and one leading space. */
  onComment?(text: string, line: number): void;
  /** Called for a `retry:` field with a whole number of milliseconds. */
  onRetry?(milliseconds: number, line: number): void;
}

/** A push decoder for SSE text. */
export interface SseDecoder {
  /** Any slice of the stream; every complete event is handed out before `feed` returns. */
  feed(chunk: string): void;
  /** Dispatches a last event left without its blank line (the standard drops it; saved files often lack it). */
  end(): void;
}

/**
 * Creates an SSE decoder.
 * @example
 * const sse = createSseDecoder({ onEvent: (e) => console.log(JSON.parse(e.data)) });
 * sse.feed("data: {\"type\":\"start\"}\n\n"); sse.end();
 */
export function createSseDecoder(callbacks: SseCallbacks): SseDecoder {
  let pending = "";
  let line = 0;
  let first = true;
  let afterCR = false; // the previous chunk ended with CR: a LF starting this one belongs to it
  let data: string[] = [];
  let eventName: string | undefined;
  let lastId: string | undefined;
  let eventLine = 0;

  function dispatch(): void {
    // The standard: an event with no data is not dispatched (its name is dropped).
    if (data.length > 0) {
      const base = { data: data.join("\n"), line: eventLine };
      const named = eventName === undefined ? base : { ...base, event: eventName };
      callbacks.onEvent(lastId === undefined ? named : { ...named, id: lastId });
    }
    data = [];
    eventName = undefined;
    eventLine = 0;
  }

  function handleLine(text: string): void {
    line++;
    if (first) {
      first = false;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    if (text === "") {
      dispatch();
      return;
    }
    if (text.startsWith(":")) {
      callbacks.onComment?.(text.slice(text.startsWith(": ") ? 2 : 1), line);
      return;
    }
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        if (data.length === 0) eventLine = line;
        data.push(value);
        return;
      case "event":
        eventName = value;
        return;
      case "id":
        if (!value.includes("\0")) lastId = value; // the standard ignores ids with NUL
        return;
      case "retry":
        if (/^\d+$/.test(value)) callbacks.onRetry?.(Number(value), line);
        return;
      default:
        return; // unknown fields are ignored, as the standard says
    }
  }

  return {
    feed(chunk) {
      let text = pending + chunk;
      if (afterCR && text.startsWith("\n")) text = text.slice(1);
      afterCR = false;
      const lineEnd = /\r\n|\r|\n/g;
      let from = 0;
      for (;;) {
        const found = lineEnd.exec(text);
        if (found === null) break;
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (found[0] === "\r" && found.index === text.length - 1) afterCR = true;
        handleLine(text.slice(from, found.index));
        from = found.index + found[0].length;
      }
      pending = text.slice(from);
    },
    end() {
      if (pending !== "") handleLine(pending);
      pending = "";
      dispatch();
    },
  };
}

/** True when a stream's first non-blank line is an SSE field or comment, not a JSON text. */
export function looksLikeSse(head: string): boolean {
  const firstLine = head
    .replace(/^\uFEFF/, "")
    .split(/\r\n|\r|\n/)
    .find((l) => l.trim() !== "");
  return firstLine !== undefined && /^(?::|(?:data|event|id|retry):)/.test(firstLine);
}
