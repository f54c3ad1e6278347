/**
 * The renderer sink: events → the terminal renderer → batched output. Each session (each input, and
 * each session of a concatenated input) gets its own renderer: its own header and footer, and what
 * it left open is closed where it ends, not at the very end.
 */
import { createTerminalRenderer, type RendererOptions } from "../../views/terminal/create-terminal-renderer.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

export function createRendererSink(options: Omit<RendererOptions, "write">, output: BatchedOutput): Sink {
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
  const nextSession = (): void => {
    renderer.end();
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
      renderer.end();
    },
  };
}
