/**
 * The renderer sink: events → the terminal renderer → batched output. Each session (each input, and
 * each session of a concatenated input) gets its own renderer: its own header and footer, and what
 * it left open is closed where it ends, not at the very end.
 */
import { createTerminalRenderer, type RendererOptions } from "../../views/terminal/create-terminal-renderer.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

/** What the renderer sink needs to know besides the view's options. */
export interface RendererSinkInputs {
  /**
   * Whether the input named so may still be written (a followed file changed a moment ago): a saved session log that
   * ends there is shown as unfinished, not ended (the terminal renderer's `end`). @defaultValue never
   */
  readonly stillWritten?: (input: string) => boolean;
  /**
   * `render --at`: the event (its `seq`) to start showing at. Events before it are given to the renderer, so what it
   * shows later has its context (the tool a result belongs to), but only each session's header is written of them.
   */
  readonly startAt?: number;
}

export function createRendererSink(options: Omit<RendererOptions, "write">, output: BatchedOutput, inputs: RendererSinkInputs = {}): Sink {
  let wrote = false; // the current session's renderer has written something
  const startAt = inputs.startAt;
  // Until the event `--at` names: the renderer's text is dropped, but for each session's header.
  let muted = startAt !== undefined && startAt > 0;
  let reached = startAt === undefined;
  let lastSeq = -1;
  const createRenderer = () =>
    createTerminalRenderer({
      ...options,
      write: (text) => {
        if (muted) return;
        wrote = true;
        output.write(text);
      },
    });
  let renderer = createRenderer();
  let currentInput: string | undefined;
  const endRenderer = (): void =>
    renderer.end({ stillWritten: currentInput !== undefined && inputs.stillWritten?.(currentInput) === true });
  const nextSession = (): void => {
    endRenderer();
    if (wrote) output.write("\n"); // a blank line between one session's footer and the next header
    wrote = false;
    renderer = createRenderer();
  };
  return {
    event(event, input) {
      if (currentInput !== undefined && input !== currentInput) nextSession();
      currentInput = input;
      lastSeq = event.seq;
      if (startAt !== undefined && !reached && event.seq >= startAt) {
        reached = true;
        muted = false;
        if (startAt > 0) output.write(`⋯ events 0–${startAt - 1} not shown (--at ${startAt})\n`);
      }
      if (muted && event.type === "session.started" && event.parentSessionId === undefined) {
        muted = false;
        renderer.render(event);
        muted = true;
      } else renderer.render(event);
    },
    sessionBoundary: nextSession,
    // A followed file truncated or replaced: its new text is another stream, with its own header.
    inputRestarted: nextSession,
    end() {
      if (!reached) {
        muted = false;
        output.write(`⋯ no event ${startAt}: the input ends at event ${lastSeq}\n`);
      }
      endRenderer();
    },
  };
}
