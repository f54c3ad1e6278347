import type { AgentEvent } from "../model/events.ts";

/** A streaming serializer: text for each event as it comes, and whatever must close the output. */
export interface EventWriter {
  /** The output text for one event (possibly empty; may hold text back until a later event). */
  write(event: AgentEvent): string;
  /** The rest of the output once the input has ended. */
  end(): string;
}

/** Options every writer understands. */
export interface WriterOptions {
  /** Server-Sent Events framing, for the UI protocols (`--sse`). */
  sse?: boolean;
  /** AAEP: re-chunk streamed text at sentence boundaries (`--coalesce sentence`); chunks still concatenate to the original text. */
  coalesce?: "none" | "sentence";
  /** codex-thread: print the final pretty JSON summary after the stream (`--final-summary`). */
  finalSummary?: boolean;
}

/** One output format. */
export interface OutputFormat {
  readonly name: string;
  readonly description: string;
  /** Media type of the output. */
  readonly mediaType: string;
  create(options: WriterOptions): EventWriter;
}
