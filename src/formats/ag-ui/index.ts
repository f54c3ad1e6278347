/** AG-UI protocol events (docs/formats/ag-ui.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { createAgUiEncoder } from "./encode.ts";
import { agUiSpec } from "./spec.ts";

export const agUiFormat: FormatDefinition = {
  name: "ag-ui",
  description: "AG-UI protocol events (NDJSON, or SSE with --sse)",
  mediaType: "application/x-ndjson",
  encoder: createAgUiEncoder,
  spec: agUiSpec,
  // AG-UI clients do not resume a stream, and its SSE output has always had no ids.
  sse: { ids: false },
};
