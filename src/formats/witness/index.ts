/** The Witness Forge NDJSON event format (docs/formats/witness.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { witness } from "./decode.ts";
import { createWitnessEncoder } from "./encode.ts";
import { witnessSpec } from "./spec.ts";

export const witnessFormat: FormatDefinition = {
  name: "witness",
  description: "Witness Forge NDJSON events {type, content, brain, meta}",
  mediaType: "application/x-ndjson",
  dialect: witness,
  encoder: createWitnessEncoder,
  spec: witnessSpec,
  options: [
    {
      name: "dualBrain",
      description: 'brain "path1" on analysis, "path2" on final: the spec\'s migration from Harmony channels (--dual-brain)',
    },
  ],
  copiesOwnRecords: true,
};
