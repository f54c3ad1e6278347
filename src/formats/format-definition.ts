/**
 * What a format is: its name and media type, and what agentstream can do with it — read it (a
 * dialect), write it (a record encoder), validate it (a FormatSpec). Each format is one folder
 * under src/formats/ whose index.ts exports one FormatDefinition; src/formats/index.ts lists them.
 */
import type { Dialect } from "../dialect/dialect.ts";
import type { EncoderOptions, RecordEncoder } from "../encoding/record-encoder.ts";
import type { SseFramingOptions } from "../framing/framer.ts";
import type { FormatSpec } from "../validation/format-spec.ts";

/** An encoder option a format understands, for `formats` listings and docs. */
export interface FormatOption {
  readonly name: keyof EncoderOptions;
  readonly description: string;
}

export interface FormatDefinition {
  readonly name: string;
  readonly description: string;
  /** Media type of the format's NDJSON output. */
  readonly mediaType: string;
  /** The decoder, when agentstream reads the format. */
  readonly dialect?: Dialect;
  /** A fresh encoder, when agentstream writes the format. */
  readonly encoder?: (options: EncoderOptions) => RecordEncoder;
  /** Schema and sequence rules, when agentstream validates the format. */
  readonly spec?: FormatSpec;
  /** The encoder options this format reads. */
  readonly options?: readonly FormatOption[];
  /** What the format adds to SSE framing (`--sse`). */
  readonly sse?: SseFramingOptions;
  /**
   * The writer copies a record read in this format through as it was (witness → witness keeps fields our events
   * have no place for): the reader must keep each event's `raw` when this format is written.
   */
  readonly copiesOwnRecords?: boolean;
}
