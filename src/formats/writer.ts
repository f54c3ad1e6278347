/**
 * Text for callers that want text: a format's record encoder followed by a framer, in the
 * EventWriter shape (`write(event): string; end(): string`) that `convert --to` and the library's
 * `outputFormats` expose.
 */
import { AgentStreamError } from "../errors.ts";
import type { EventWriter, WriterOptions } from "../encoding/writer.ts";
import { createFramer, type Framer } from "../framing/framer.ts";
import { stringifyRecord } from "../framing/stringify.ts";
import type { FormatDefinition } from "./format-definition.ts";

/**
 * The text writer of `format`: its records framed as NDJSON, SSE or json-seq.
 * @example
 * const writer = createFormatWriter(getFormat("witness"), { sse: true });
 */
export function createFormatWriter(format: FormatDefinition, options: WriterOptions = {}): EventWriter {
  if (format.encoder === undefined) throw new AgentStreamError("unknown-format", `agentstream does not write the format "${format.name}"`);
  const encoder = format.encoder(options);
  const framer = createFramer(
    options.sse === true ? "sse" : (options.framing ?? "ndjson"),
    format.sse === undefined ? {} : { sse: format.sse },
  );
  let id = 0;
  const frameAll = (records: readonly object[]): string => framed(framer, records, () => id++);
  return {
    write: (event) => frameAll(encoder.encode(event)),
    end() {
      let out = frameAll(encoder.end()) + framer.end();
      const trailer = encoder.trailer?.();
      if (trailer !== undefined) out += `${stringifyRecord(trailer, 2)}\n`;
      return out;
    },
  };
}

function framed(framer: Framer, records: readonly object[], nextId: () => number): string {
  if (records.length === 0) return "";
  if (records.length === 1) return framer.frame(records[0], nextId());
  let out = "";
  for (const record of records) out += framer.frame(record, nextId());
  return out;
}
