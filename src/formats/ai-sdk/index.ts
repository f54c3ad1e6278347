/** The Vercel AI SDK UI message stream (docs/formats/ai-sdk.md). */
import type { FormatDefinition } from "../format-definition.ts";
import { createAiSdkEncoder } from "./encode.ts";
import { aiSdkSpec } from "./spec.ts";

export const aiSdkFormat: FormatDefinition = {
  name: "ai-sdk",
  description: "Vercel AI SDK UI message stream (NDJSON, or SSE with --sse)",
  mediaType: "application/x-ndjson",
  encoder: createAiSdkEncoder,
  spec: aiSdkSpec,
  // The SSE transport's required header cannot be sent from a CLI: a comment line says it (clients
  // skip comments); the stream ends with the protocol's `[DONE]`.
  sse: { ids: false, preamble: ": x-vercel-ai-ui-message-stream: v1\n", done: "[DONE]" },
};
