/**
 * The record sink: events → a format writer → batched output. Each input is its own stream: the
 * previous input's writer is closed where the next input's first event arrives (or where a
 * followed file was truncated or replaced).
 * (The writer's `create(options)` shape stays behind this sink while writers become encoder + framer.)
 */
import type { AgentEvent } from "../../model/events.ts";
import type { OutputFormat, WriterOptions } from "../../output-formats.ts";
import { createSharedStrings, hasStandIn, releaseStandIns, splice, strings } from "../../framing/shared-strings.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

export function createRecordSink(format: OutputFormat, writerOptions: WriterOptions, output: BatchedOutput): Sink {
  let writer = format.create(writerOptions);
  let current: string | undefined;
  const write = format.name === "agentstream" ? writeSharingOutputs(output) : undefined;
  const writeEnd = (text: string): void => (write === undefined ? output.write(text) : writeSpliced(output, text));
  return {
    event(event, input) {
      if (current !== undefined && current !== input) {
        writeEnd(writer.end());
        writer = format.create(writerOptions);
      }
      current = input;
      if (write === undefined) output.write(writer.write(event));
      else write(event, (standIn) => writer.write(standIn));
    },
    inputRestarted() {
      // A followed file truncated or replaced: its new text is another stream.
      writeEnd(writer.end());
      writer = format.create(writerOptions);
    },
    end() {
      writeEnd(writer.end());
    },
  };
}

/**
 * `--to agentstream`: a tool's long output (most of the bytes of a session) is written as bytes
 * (framing/shared-strings.ts). Read with `rawStrings`, it arrives as a stand-in for its input bytes,
 * which are spliced in unread; otherwise it is escaped and encoded to UTF-8 once, though the event has
 * it twice (Claude's `tool_use_result.stdout` repeats the tool_result's text as `result.stdout`), and
 * spliced in where each stand-in is, as the run logs do. `JSON.stringify` escapes a string the same
 * wherever it stands, and held input bytes are exactly what it writes, so the text is the same. The
 * writer's lines for an event are written before the next event's stand-ins are made, and the event's
 * input strings are released once written (or dropped by the sequence guard); what `end` writes has
 * none (its events are made by the sequence guard).
 */
function writeSharingOutputs(output: BatchedOutput): (event: AgentEvent, encode: (event: AgentEvent) => string) => void {
  const shared = createSharedStrings();
  return (event, encode) => {
    writeSpliced(output, encode(shared.standIn(event)));
    shared.forget();
    releaseStandIns(event);
  };
}

/** The text with the bytes of each stand-in spliced in (an input string's may stand anywhere a decoder put it). */
function writeSpliced(output: BatchedOutput, text: string): void {
  // Most events are written while nothing is held: no search of their text then.
  if (strings.size === 0 || !hasStandIn(text)) return output.write(text);
  for (const piece of splice(text, strings, true)) {
    if (typeof piece === "string") output.write(piece);
    else output.writeBytes(piece);
  }
}
