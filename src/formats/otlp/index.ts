/** OpenTelemetry traces (OTLP/JSON), the GenAI semantic conventions for agents: docs/otel.md. Written, never read. */
import type { FormatDefinition } from "../format-definition.ts";
import { createOtlpEncoder } from "./encode.ts";

export const otlpFormat: FormatDefinition = {
  name: "otlp",
  description: "OpenTelemetry traces: one OTLP/JSON ExportTraceServiceRequest per session (GenAI semantic conventions)",
  mediaType: "application/x-ndjson",
  encoder: createOtlpEncoder,
  options: [
    { name: "captureContent", description: "write prompts, answers, tool arguments and results (after redaction)" },
    { name: "latestConventionsOnly", description: "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental: no older attribute names" },
    { name: "resourceAttributes", description: "the resource's attributes (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME)" },
  ],
};
