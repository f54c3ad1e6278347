/** The terminal view's settings that `render`, `run` and `tail` read the same way: width and verbosity. */
import { AgentStreamError } from "../errors.ts";
import type { Verbosity } from "../views/terminal/create-terminal-renderer.ts";
import type { CliIo } from "./io.ts";

/** --verbose, else --quiet, else normal. */
export function viewVerbosity(values: { readonly verbose?: boolean | undefined; readonly quiet?: boolean | undefined }): Verbosity {
  if (values.verbose) return "verbose";
  return values.quiet ? "quiet" : "normal";
}

/** --width, else the terminal's; a pipe has no width of its own: $COLUMNS (what the shell says the terminal is) stands in, else 80. */
export function viewWidth(flag: string | undefined, io: Pick<CliIo, "env" | "stdout">): number {
  if (flag !== undefined) {
    const width = Number(flag);
    if (!Number.isInteger(width) || width < 20)
      throw new AgentStreamError("usage", `--width takes a whole number of columns, at least 20, not "${flag}"`);
    return width;
  }
  const envColumns = Number(io.env.COLUMNS);
  return io.stdout.columns ?? (Number.isInteger(envColumns) && envColumns >= 20 ? envColumns : 80);
}
