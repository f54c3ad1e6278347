/** oneshot's unified activity packets (docs/formats/oneshot.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { oneshot } from "./decode.ts";
import { createOneshotEncoder } from "./encode.ts";
import { oneshotSpec } from "./spec.ts";

export const oneshotFormat: FormatDefinition = {
  name: "oneshot",
  description: "oneshot unified activity packets (with heartbeats)",
  mediaType: "application/x-ndjson",
  dialect: oneshot,
  encoder: createOneshotEncoder,
  spec: oneshotSpec,
};
