/** Output formats, by name. Each is a pure streaming serializer (serialize/<format>.ts). */
import { AgentStreamError } from "../errors.ts";
import { createAgentstreamWriter } from "./to-agentstream.ts";
import type { OutputFormat } from "./writer.ts";

export { toLine, toLines } from "./to-agentstream.ts";
export type { EventWriter, OutputFormat, WriterOptions } from "./writer.ts";

/** Every output format `convert --to` knows. */
export const outputFormats: readonly OutputFormat[] = [
  { name: "agentstream", description: "agentstream's own event model v1 (NDJSON)", mediaType: "application/x-ndjson", create: createAgentstreamWriter },
];

/** The output format called `name`; throws a usage error that lists the formats when there is none. */
export function getOutputFormat(name: string): OutputFormat {
  const format = outputFormats.find((f) => f.name === name);
  if (format === undefined) {
    throw new AgentStreamError("unknown-format", `unknown output format "${name}"; known: ${outputFormats.map((f) => f.name).join(", ")}`);
  }
  return format;
}
