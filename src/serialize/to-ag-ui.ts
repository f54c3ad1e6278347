// Writer for `--to ag-ui`. (Stub: not written yet; see docs/formats/ag-ui.md.)
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "./writer.ts";

/** The streaming writer for `--to ag-ui`. */
export function createAgUiWriter(_options: WriterOptions = {}): EventWriter {
  throw new AgentStreamError("unknown-format", "the ag-ui writer is not written yet");
}
