/**
 * A Sink consumes the events of each input: a format writer (record sink), the terminal renderer,
 * a summary, a validator; next an SSE server, a publisher. The pipeline (../input.ts) calls it.
 */
import type { Issue } from "../../errors.ts";
import type { AgentEvent } from "../../model/events.ts";
import type { EventReader, SessionBoundary } from "../../pipeline/create-event-reader.ts";
import type { HeldStrings } from "../../framing/held-strings.ts";

/** One input as the commands see it. */
export interface InputRun {
  /** The file name, or `<stdin>`. */
  readonly name: string;
  readonly reader: EventReader;
  /** The first 1000 issues of severity warning or worse (all of them were printed as they came). */
  readonly issues: Issue[];
  /** Bytes read. */
  readonly bytes: number;
  /** Set when nothing useful could be read: the one line printed about it (empty, not text, no dialect). */
  readonly unreadable: string | undefined;
  /** For an input read as SSE: the SSE line of each record, by record line (1-based); else undefined. */
  readonly sseLines: readonly number[] | undefined;
}

export interface Sink {
  /**
   * A sink that writes our own format and splices held strings (framing/held-strings.ts): its readers hold
   * long tool outputs there, and its events may carry their placeholders, which it splices and releases.
   */
  readonly heldStrings?: HeldStrings;
  /** One event of the input named `input`. */
  event(event: AgentEvent, input: string): void;
  /** An issue of the input named `input` (already printed on stderr when it should be). */
  issue?(issue: Issue, input: string): void;
  /** A new session starts inside the input named `input` (concatenated sessions). */
  sessionBoundary?(boundary: SessionBoundary, input: string): void;
  /** The input `run` was read to its end. */
  endInput?(run: InputRun): void;
  /**
   * After `endInput`: the input started again (a followed file truncated or replaced); what follows,
   * under the same name, is a new stream read from its start. Close what `run` left open.
   */
  inputRestarted?(run: InputRun): void;
  /** Every input was read; the sink writes what it kept for the end. */
  end(runs: readonly InputRun[]): void | Promise<void>;
}
