/**
 * Every output format `convert --to` knows, as text writers: the formats' encoders behind a framer
 * (src/formats/), then the transcripts for people (text, markdown).
 */
import { AgentStreamError } from "./errors.ts";
import type { OutputFormat } from "./encoding/writer.ts";
import { formats } from "./formats/index.ts";
import { createFormatWriter } from "./formats/writer.ts";
import { createMarkdownWriter } from "./views/transcript/markdown.ts";
import { createTextWriter } from "./views/transcript/text.ts";

export { toLine, toLines } from "./formats/agentstream/encode.ts";
export type { EventWriter, OutputFormat, WriterOptions } from "./encoding/writer.ts";

/** Every output format `convert --to` knows. */
export const outputFormats: readonly OutputFormat[] = [
  ...formats.flatMap((format): OutputFormat[] =>
    format.encoder === undefined
      ? []
      : [
          {
            name: format.name,
            description: format.description,
            mediaType: format.mediaType,
            ...(format.copiesOwnRecords === true ? { copiesOwnRecords: true } : {}),
            create: (options) => createFormatWriter(format, options),
          },
        ],
  ),
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
