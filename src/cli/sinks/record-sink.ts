/**
 * The record sink: events → a format writer → batched output. Each input is its own stream: the
 * previous input's writer is closed where the next input's first event arrives (or where a
 * followed file was truncated or replaced).
 * (The writer's `create(options)` shape stays behind this sink while writers become encoder + framer.)
 */
import type { AgentEvent } from "../../model/events.ts";
import type { OutputFormat, WriterOptions } from "../../output-formats.ts";
import { splice } from "../../run/_log-lines.ts";
import { createSharedStrings, STAND_IN_IN_JSON } from "../../run/_shared-strings.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

export function createRecordSink(format: OutputFormat, writerOptions: WriterOptions, output: BatchedOutput): Sink {
  let writer = format.create(writerOptions);
  let current: string | undefined;
  const write = format.name === "agentstream" ? writeSharingOutputs(output) : undefined;
  return {
    event(event, input) {
      if (current !== undefined && current !== input) {
        output.write(writer.end());
        writer = format.create(writerOptions);
      }
      current = input;
      if (write === undefined) output.write(writer.write(event));
      else write(event, (standIn) => writer.write(standIn));
    },
    inputRestarted() {
      // A followed file truncated or replaced: its new text is another stream.
      output.write(writer.end());
      writer = format.create(writerOptions);
    },
    end() {
      output.write(writer.end());
    },
  };
}

/**
 * `--to agentstream`: a tool's long output (most of the bytes of a session) is escaped and encoded to
 * UTF-8 once, though the event has it twice (Claude's `tool_use_result.stdout` repeats the
 * tool_result's text as `result.stdout`), and its bytes are spliced in where each stand-in is, as
 * the run logs do (src/run/_shared-strings.ts). `JSON.stringify` escapes a string the same wherever
 * it stands, so the text is the same. The writer's lines for an event are written before the next
 * event's stand-ins are made; what `end` writes has none (its events are made by the sequence guard).
 */
function writeSharingOutputs(output: BatchedOutput): (event: AgentEvent, encode: (event: AgentEvent) => string) => void {
  const shared = createSharedStrings();
  return (event, encode) => {
    const text = encode(shared.standIn(event));
    if (!shared.used || !text.includes(STAND_IN_IN_JSON)) return output.write(text);
    for (const piece of splice(text, shared)) {
      if (typeof piece === "string") output.write(piece);
      else output.writeBytes(piece);
    }
  };
}
