// Writer for `--to markdown`. (Stub: not written yet; see docs/formats/markdown.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to markdown`. */
export function createMarkdownWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the markdown writer is not written yet");
}
