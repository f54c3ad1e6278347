// Writer for `--to aaep`. (Stub: not written yet; see docs/formats/aaep.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to aaep`. */
export function createAaepWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the aaep writer is not written yet");
}
