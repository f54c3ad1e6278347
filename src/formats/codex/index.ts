/** The real `codex exec --json` stream, as we write it (reading it is the Codex agent dialect's job; docs/formats/codex.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { createCodexEncoder } from "./encode.ts";
import { codexSpec } from "./spec.ts";

export const codexFormat: FormatDefinition = {
  name: "codex",
  description: "the real Codex exec --json event shapes",
  mediaType: "application/x-ndjson",
  encoder: createCodexEncoder,
  spec: codexSpec,
};
