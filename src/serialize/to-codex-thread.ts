// Writer for `--to codex-thread`. (Stub: not written yet; see docs/formats/codex-thread.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to codex-thread`. */
export function createCodexThreadWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the codex-thread writer is not written yet");
}
