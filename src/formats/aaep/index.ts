/** AAEP v1, the Agent Accessibility Event Protocol (docs/formats/aaep.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { aaep } from "./decode.ts";
import { createAaepEncoder } from "./encode.ts";
import { aaepSpec } from "./spec.ts";

export const aaepFormat: FormatDefinition = {
  name: "aaep",
  description: "AAEP v1 events: agent.output.streaming chunks and the core lifecycle events",
  mediaType: "application/x-ndjson",
  dialect: aaep,
  encoder: createAaepEncoder,
  spec: aaepSpec,
  options: [{ name: "coalesce", description: "none | sentence: re-chunk streamed text at sentence boundaries (--coalesce)" }],
};
