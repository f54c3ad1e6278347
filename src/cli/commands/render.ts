import { createTerminalRenderer, type RenderMode } from "../../render/create-terminal-renderer.ts";
import { AgentStreamError } from "../../errors.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../command.ts";
import type { CliIo } from "../io.ts";
import { readInputs, readingOptions, readingOptionsHelp, type ReadingValues } from "../_input.ts";

export const render: Command = {
  name: "render",
  summary: "show any agent's stream, live or saved, as a person would read it",
  help: `Usage: agentstream render [options] [file ...]

Shows agent output in the terminal as it happens: messages, reasoning, tool calls and their output,
errors and a footer with status, tokens and cost. Append-only: it reads right in a terminal, a
pipe, a CI log or a file. Control characters in agent text are shown as visible symbols.

Options:
  --mode <mode>            full | basic | none (default: chosen from the terminal, NO_COLOR, FORCE_COLOR)
  --full                   show tool output in full
${readingOptionsHelp}

Example:
  claude -p "fix the tests" --output-format stream-json --verbose | agentstream render`,
  options: { ...readingOptions, mode: { type: "string" }, full: { type: "boolean", default: false } },
  async run(values, files, io) {
    const mode = chooseMode(values.mode as string | undefined, io);
    let pending: string[] = [];
    const renderer = createTerminalRenderer({
      write: (text) => pending.push(text),
      mode,
      width: io.stdout.columns ?? 80,
      verbosity: values.full === true ? "full" : values.verbose === true ? "verbose" : values.quiet === true ? "quiet" : "normal",
    });
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const text = pending.join("");
      pending = [];
      await io.stdout.write(text);
    };
    const runs = await readInputs(files, io, { ...(values as ReadingValues), verbose: false }, { onEvent: (event) => renderer.render(event), onChunk: flush });
    renderer.end();
    await flush();
    const failed = values.strict === true && runs.some((run) => run.issues.some((i) => i.severity !== "info"));
    return failed ? EXIT.issues : EXIT.ok;
  },
};

/** Picks the render mode from --mode, then the environment conventions, then whether stdout is a terminal. */
export function chooseMode(flag: string | undefined, io: Pick<CliIo, "env" | "stdout">): RenderMode {
  if (flag !== undefined) {
    if (flag !== "full" && flag !== "basic" && flag !== "none") throw new AgentStreamError("usage", `--mode takes full, basic or none, not "${flag}"`);
    return flag;
  }
  const env = io.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return "none";
  if (env.TERM === "dumb") return "none";
  const forced = (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false") || (env.CLICOLOR_FORCE !== undefined && env.CLICOLOR_FORCE !== "0");
  if (forced) return io.stdout.isTTY ? "full" : "basic";
  if (env.FORCE_COLOR === "0" || env.CLICOLOR === "0") return "none";
  return io.stdout.isTTY ? "full" : "none";
}
