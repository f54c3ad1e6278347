/** Reading validate --format's input as NDJSON or, when it opens like one, as Server-Sent Events. */
import { createSseDecoder, looksLikeSse } from "../framing/create-sse-decoder.ts";
import type { EventReader } from "../pipeline/create-event-reader.ts";

/**
 * Feeds the reader NDJSON, or, when the input opens like Server-Sent Events, each event's data as
 * one NDJSON line (the AI SDK's `data: [DONE]` terminator is not a record). Keeps the SSE line of
 * each record so diagnostics point into the file as written.
 */
export function createSseSniffer(reader: EventReader) {
  const text = new TextDecoder("utf-8", { ignoreBOM: false });
  let head = "";
  let decided: "sse" | "ndjson" | undefined;
  const lines: number[] = [];
  const sse = createSseDecoder({
    onEvent(event) {
      if (event.data === "[DONE]") return;
      lines.push(event.line);
      // Raw newlines are JSON whitespace between tokens and invalid inside strings: one line keeps the JSON.
      reader.feed(`${event.data.replace(/\r\n|\r|\n/g, " ")}\n`);
    },
  });
  let raw: (Uint8Array | string)[] = []; // the chunks read while deciding, handed on as they came
  const decide = (final: boolean): void => {
    if (decided !== undefined || (!final && !/\S[^\n]*\n/.test(head))) return;
    decided = looksLikeSse(head) ? "sse" : "ndjson";
    if (decided === "sse") sse.feed(head);
    else for (const chunk of raw) reader.feed(chunk);
    head = "";
    raw = [];
  };
  return {
    feed(chunk: Uint8Array | string): void {
      if (decided === "ndjson") {
        reader.feed(chunk);
        return;
      }
      const piece = typeof chunk === "string" ? chunk : text.decode(chunk, { stream: true });
      if (decided === "sse") {
        sse.feed(piece);
        return;
      }
      head += piece;
      raw.push(chunk);
      decide(false);
    },
    end(): void {
      const rest = text.decode();
      if (decided === "sse" && rest !== "") sse.feed(rest);
      else head += rest;
      decide(true);
      if (decided === "sse") sse.end();
    },
    lines: (): readonly number[] | undefined => (decided === "sse" ? lines : undefined),
    /** The SSE line of the record fed as NDJSON line `line`, once the input is known to be SSE. */
    lineOf: (line: number): number | undefined => (decided === "sse" ? lines[line - 1] : undefined),
  };
}
