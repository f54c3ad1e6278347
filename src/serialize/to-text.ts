// Writer for `--to text`. (Stub: not written yet; see docs/formats/text.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to text`. */
export function createTextWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the text writer is not written yet");
}
