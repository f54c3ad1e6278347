// Writer for `--to ai-sdk`. (Stub: not written yet; see docs/formats/ai-sdk.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to ai-sdk`. */
export function createAiSdkWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the ai-sdk writer is not written yet");
}
