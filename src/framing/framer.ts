/**
 * Records → text. Any format's records can be framed any way: one JSON text per line (NDJSON),
 * Server-Sent Events (`id:` then `data:`), or RFC 7464 JSON text sequences (RS before each text).
 * Every record goes through the one `stringifyRecord`, so big integers survive in every framing.
 */
import { stringifyRecord } from "./stringify.ts";

/** How records are laid out as text. */
export type RecordFraming = "ndjson" | "sse" | "json-seq";

/** What a format adds to the Server-Sent Events framing of its records. */
export interface SseFramingOptions {
  /** Text written once before the first frame (e.g. a comment line naming the protocol). */
  readonly preamble?: string;
  /** The `data:` value of a closing frame, written at the end when any frame was written (e.g. `[DONE]`). */
  readonly done?: string;
  /** Write an `id:` field per frame (default true); off for protocols whose clients never resume. */
  readonly ids?: boolean;
}

export interface FramerOptions {
  readonly sse?: SseFramingOptions;
}

/** Frames records one at a time. */
export interface Framer {
  /** The text for one record; `id` is the SSE event id (ignored by the other framings). */
  frame(record: unknown, id?: number | string): string;
  /** What closes the output. */
  end(): string;
}

/** RFC 7464's record separator. */
const RS = "\u001e";

/**
 * A framer for `framing`.
 * @example
 * createFramer("sse").frame({ type: "a" }, 0) // 'id: 0\ndata: {"type":"a"}\n\n'
 */
export function createFramer(framing: RecordFraming, options: FramerOptions = {}): Framer {
  if (framing === "sse") return createSseFramer(options.sse ?? {});
  const prefix = framing === "json-seq" ? RS : "";
  return {
    frame: (record) => `${prefix}${stringifyRecord(record)}\n`,
    end: () => "",
  };
}

function createSseFramer(options: SseFramingOptions): Framer {
  let framed = false;
  const ids = options.ids !== false;
  return {
    frame(record, id) {
      const opening = framed ? "" : (options.preamble ?? "");
      framed = true;
      const idField = ids && id !== undefined ? `id: ${id}\n` : "";
      // JSON text escapes CR and LF, so a value can never end the `data:` field or the event early.
      return `${opening}${idField}data: ${stringifyRecord(record)}\n\n`;
    },
    end: () => (framed && options.done !== undefined ? `data: ${options.done}\n\n` : ""),
  };
}
