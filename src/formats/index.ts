/**
 * The format registry: every format agentstream reads, writes or validates, one line each.
 * Adding a format is one folder (src/formats/<name>/) plus one line here (docs/formats/README.md).
 */
import { AgentStreamError } from "../errors.ts";
import type { FormatSpec } from "../validation/format-spec.ts";
import { aaepFormat } from "./aaep/index.ts";
import { agUiFormat } from "./ag-ui/index.ts";
import { agentstreamFormat } from "./agentstream/index.ts";
import { aiSdkFormat } from "./ai-sdk/index.ts";
import { codexThreadFormat } from "./codex-thread/index.ts";
import { codexFormat } from "./codex/index.ts";
import type { FormatDefinition } from "./format-definition.ts";
import { oneshotFormat } from "./oneshot/index.ts";
import { otlpFormat } from "./otlp/index.ts";
import { witnessFormat } from "./witness/index.ts";

export type { FormatDefinition, FormatOption } from "./format-definition.ts";

/** Every format, in the order listings show them; formats with a dialect are detected in this order. */
export const formats: readonly FormatDefinition[] = [
  agentstreamFormat,
  witnessFormat,
  oneshotFormat,
  aaepFormat,
  codexThreadFormat,
  codexFormat,
  agUiFormat,
  aiSdkFormat,
  otlpFormat,
];

/** The format called `name`; throws a usage error that lists the names when there is none. */
export function getFormat(name: string): FormatDefinition {
  const format = formats.find((f) => f.name === name);
  if (format === undefined)
    throw new AgentStreamError("unknown-format", `unknown format "${name}"; known: ${formats.map((f) => f.name).join(", ")}`);
  return format;
}

/** Every format with a schema and validator. */
export const formatSpecs: readonly FormatSpec[] = formats.flatMap((format) => (format.spec === undefined ? [] : [format.spec]));

/** The format called `name`; throws a usage error that lists the names when there is none. */
export function getFormatSpec(name: string): FormatSpec {
  const spec = formatSpecs.find((f) => f.name === name);
  if (spec === undefined)
    throw new AgentStreamError("unknown-format", `no schema for format "${name}"; known: ${formatSpecs.map((f) => f.name).join(", ")}`);
  return spec;
}
