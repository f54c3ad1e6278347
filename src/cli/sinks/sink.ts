/**
 * A Sink consumes the events of each input: a format writer (record sink), the terminal renderer,
 * a summary, a validator; next an SSE server, a publisher. The pipeline (../_input.ts) calls it.
 */
import type { Issue } from "../../errors.ts";
import type { AgentEvent } from "../../model/events.ts";
import type { SessionBoundary } from "../../pipeline/create-event-reader.ts";
import type { InputRun } from "../_input.ts";

export interface Sink {
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
