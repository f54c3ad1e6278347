// Writer for `--to codex`. (Stub: not written yet; see docs/formats/codex.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to codex`. */
export function createCodexWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the codex writer is not written yet");
}
