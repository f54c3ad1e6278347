/** Output formats, by name. Each is a pure streaming serializer (serialize/<format>.ts). */
import { AgentStreamError } from "../errors.ts";
import { createAaepWriter } from "./to-aaep.ts";
import { createAgUiWriter } from "./to-ag-ui.ts";
import { createAgentstreamWriter } from "./to-agentstream.ts";
import { createAiSdkWriter } from "./to-ai-sdk.ts";
import { createCodexThreadWriter } from "./to-codex-thread.ts";
import { createCodexWriter } from "./to-codex.ts";
import { createMarkdownWriter } from "../views/transcript/markdown.ts";
import { createOneshotWriter } from "./to-oneshot.ts";
import { createTextWriter } from "../views/transcript/text.ts";
import { createWitnessWriter } from "./to-witness.ts";
import type { OutputFormat } from "./writer.ts";

export { toLine, toLines } from "./to-agentstream.ts";
export type { EventWriter, OutputFormat, WriterOptions } from "./writer.ts";

/** Every output format `convert --to` knows. */
export const outputFormats: readonly OutputFormat[] = [
  { name: "agentstream", description: "agentstream's own event model v1 (NDJSON)", mediaType: "application/x-ndjson", create: createAgentstreamWriter },
  { name: "witness", description: "Witness Forge NDJSON events {type, content, brain, meta}", mediaType: "application/x-ndjson", create: createWitnessWriter },
  { name: "oneshot", description: "oneshot unified activity packets (with heartbeats)", mediaType: "application/x-ndjson", create: createOneshotWriter },
  { name: "aaep", description: "AAEP v1 events: agent.output.streaming chunks and the core lifecycle events", mediaType: "application/x-ndjson", create: createAaepWriter },
  { name: "codex-thread", description: "Codex-style --stream-json lifecycle (thread/turn/item, dev-agent design)", mediaType: "application/x-ndjson", create: createCodexThreadWriter },
  { name: "codex", description: "the real Codex exec --json event shapes", mediaType: "application/x-ndjson", create: createCodexWriter },
  { name: "ag-ui", description: "AG-UI protocol events (NDJSON, or SSE with --sse)", mediaType: "application/x-ndjson", create: createAgUiWriter },
  { name: "ai-sdk", description: "Vercel AI SDK UI message stream (NDJSON, or SSE with --sse)", mediaType: "application/x-ndjson", create: createAiSdkWriter },
  { name: "text", description: "plain text for people (no colour)", mediaType: "text/plain", create: createTextWriter },
  { name: "markdown", description: "a Markdown transcript", mediaType: "text/markdown", create: createMarkdownWriter },
];

/** The output format called `name`; throws a usage error that lists the formats when there is none. */
export function getOutputFormat(name: string): OutputFormat {
  const format = outputFormats.find((f) => f.name === name);
  if (format === undefined) {
    throw new AgentStreamError("unknown-format", `unknown output format "${name}"; known: ${outputFormats.map((f) => f.name).join(", ")}`);
  }
  return format;
}
