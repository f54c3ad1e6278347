/** The Codex-style thread/turn/item lifecycle of the dev-agent design (docs/formats/codex-thread.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { codexThread } from "./decode.ts";
import { createCodexThreadEncoder } from "./encode.ts";
import { codexThreadSpec } from "./spec.ts";

export const codexThreadFormat: FormatDefinition = {
  name: "codex-thread",
  description: "Codex-style --stream-json lifecycle (thread/turn/item, dev-agent design)",
  mediaType: "application/x-ndjson",
  dialect: codexThread,
  encoder: createCodexThreadEncoder,
  spec: codexThreadSpec,
  options: [{ name: "finalSummary", description: "print the final pretty JSON summary after the stream (--final-summary)" }],
};
