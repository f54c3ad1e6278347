/**
 * The record sink: events → a format writer → batched output. Each input is its own stream: the
 * previous input's writer is closed where the next input's first event arrives (or where a
 * followed file was truncated or replaced).
 * (The writer's `create(options)` shape stays behind this sink while writers become encoder + framer.)
 */
import type { OutputFormat, WriterOptions } from "../../output-formats.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

export function createRecordSink(format: OutputFormat, writerOptions: WriterOptions, output: BatchedOutput): Sink {
  let writer = format.create(writerOptions);
  let current: string | undefined;
  return {
    event(event, input) {
      if (current !== undefined && current !== input) {
        output.write(writer.end());
        writer = format.create(writerOptions);
      }
      current = input;
      output.write(writer.write(event));
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
