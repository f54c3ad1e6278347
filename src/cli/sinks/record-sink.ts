/**
 * The record sink: events → a format writer → batched output. Each input is its own stream: the
 * previous input's writer is closed where the next input's first event arrives (or where a
 * followed file was truncated or replaced).
 * (The writer's `create(options)` shape stays behind this sink while writers become encoder + framer.)
 */
import type { OutputFormat, WriterOptions } from "../../output-formats.ts";
import { HeldStrings, mayHoldPlaceholder, releaseHeld, splice } from "../../framing/held-strings.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

export function createRecordSink(format: OutputFormat, writerOptions: WriterOptions, output: BatchedOutput): Sink {
  let writer = format.create(writerOptions);
  let current: string | undefined;
  // Our own format: a tool's long output (most of the bytes of a session) is held as its input bytes by
  // the reader and spliced into the text unread (framing/held-strings.ts). Held input bytes are exactly
  // what `JSON.stringify` writes, so the text is the same. An event's held strings are released once its
  // lines are written (or the sequence guard dropped it); what `end` writes has none.
  const held = format.name === "agentstream" ? new HeldStrings() : undefined;
  const write = (text: string): void => (held === undefined ? output.write(text) : writeSpliced(output, text, held));
  return {
    ...(held === undefined ? {} : { heldStrings: held }),
    event(event, input) {
      if (current !== undefined && current !== input) {
        write(writer.end());
        writer = format.create(writerOptions);
      }
      current = input;
      write(writer.write(event));
      if (held !== undefined) releaseHeld(event, held);
    },
    inputRestarted() {
      // A followed file truncated or replaced: its new text is another stream.
      write(writer.end());
      writer = format.create(writerOptions);
    },
    end() {
      write(writer.end());
    },
  };
}

/** The text with the bytes of each held string spliced in (a placeholder may stand anywhere a decoder put it). */
function writeSpliced(output: BatchedOutput, text: string, held: HeldStrings): void {
  // Most events are written while nothing is held: no search of their text then.
  if (!mayHoldPlaceholder(text, held)) return output.write(text);
  for (const piece of splice(text, held, true)) {
    if (typeof piece === "string") output.write(piece);
    else output.writeBytes(piece);
  }
}
