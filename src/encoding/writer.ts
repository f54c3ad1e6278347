import type { AgentEvent } from "../model/events.ts";
import type { RecordFraming } from "../framing/framer.ts";
import type { EncoderOptions } from "./record-encoder.ts";

/** A streaming serializer: text for each event as it comes, and whatever must close the output. */
export interface EventWriter {
  /** The output text for one event (possibly empty; may hold text back until a later event). */
  write(event: AgentEvent): string;
  /** The rest of the output once the input has ended. */
  end(): string;
}

/** Options every writer understands: the encoder's options plus how its records are framed. */
export interface WriterOptions extends EncoderOptions {
  /** Server-Sent Events framing (`--sse`); shorthand for `framing: "sse"`. */
  sse?: boolean;
  /** How records are laid out as text (default NDJSON; `sse` wins when set). */
  framing?: RecordFraming;
}

/** One output format, as text. */
export interface OutputFormat {
  readonly name: string;
  readonly description: string;
  /** Media type of the output. */
  readonly mediaType: string;
  /** The writer copies a record read in its own format through as it was: it needs each event's `raw` (witness). */
  readonly copiesOwnRecords?: boolean;
  create(options: WriterOptions): EventWriter;
}
