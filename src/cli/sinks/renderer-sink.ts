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
}

export function createRendererSink(options: Omit<RendererOptions, "write">, output: BatchedOutput, inputs: RendererSinkInputs = {}): Sink {
  let wrote = false; // the current session's renderer has written something
  const createRenderer = () =>
    createTerminalRenderer({
      ...options,
      write: (text) => {
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
      renderer.render(event);
    },
    sessionBoundary: nextSession,
    // A followed file truncated or replaced: its new text is another stream, with its own header.
    inputRestarted: nextSession,
    end() {
      endRenderer();
    },
  };
}
