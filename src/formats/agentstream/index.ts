/** The agentstream format: our own event model, one event per record. */
import type { FormatDefinition } from "../format-definition.ts";
import { agentstream } from "./decode.ts";
import { createAgentstreamEncoder } from "./encode.ts";
import { agentstreamSpec } from "./spec.ts";

export const agentstreamFormat: FormatDefinition = {
  name: "agentstream",
  description: "agentstream's own event model v1 (NDJSON)",
  mediaType: "application/x-ndjson",
  dialect: agentstream,
  encoder: createAgentstreamEncoder,
  spec: agentstreamSpec,
};
