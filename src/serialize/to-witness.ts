// Writer for `--to witness`. (Stub: not written yet; see docs/formats/witness.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to witness`. */
export function createWitnessWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the witness writer is not written yet");
}
