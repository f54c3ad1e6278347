// Writer for `--to oneshot`. (Stub: not written yet; see docs/formats/oneshot.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to oneshot`. */
export function createOneshotWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the oneshot writer is not written yet");
}
