import { randomUUID } from "node:crypto";
import { createTerminalRenderer, type RenderMode, type Verbosity } from "../../render/create-terminal-renderer.ts";
import { AgentStreamError } from "../../errors.ts";
import type { Command } from "../command.ts";
import type { CliIo } from "../io.ts";
import { readInputs, readingStatus, readingOptions, readingOptionsHelp, type ReadingValues } from "../_input.ts";

export const render: Command = {
  name: "render",
  summary: "show any agent's stream, live or saved, as a person would read it",
  help: `Usage: agentstream render [options] [file ...]

Shows agent output in the terminal as it happens: messages, reasoning, tool calls with their key
argument and (cut) output, file changes, plans, errors, metrics and a footer with status, duration,
turns, tokens and cost. Subagents are indented under the call that started them. Append-only (no
cursor movement): it reads right in a terminal at any width, a pipe, a CI log or a file. Escape
sequences and control characters in agent and tool text are shown as visible symbols, never run.

Options:
  --mode <mode>            full | basic | none (default: chosen from the terminal, NO_COLOR,
                           FORCE_COLOR, CLICOLOR, CLICOLOR_FORCE, TERM=dumb)
  -q, --quiet              answers, tool calls, errors, metrics and the footer only
  -v, --verbose            also notices, repairs, unknown records, system messages, more output
  --full                   everything, nothing cut
  --debug                  each event as one line of JSON (with the agent's raw record)
  --width <n>              wrap and fit lines to n columns (default: the terminal's, else $COLUMNS, else 80)
  --links                  make http(s) URLs clickable (OSC 8 links we build; the URL is the text)
  --keep-colors            keep the colours (SGR only) of tool output; other sequences stay visible
${readingOptionsHelp.split("\n").filter((line) => !/^\s+-[vq], --/.test(line)).join("\n")}
  (in render, -v and -q set how much is shown; -q also silences input diagnostics on stderr)

Example:
  claude -p "fix the tests" --output-format stream-json --verbose | agentstream render`,
  options: {
    ...readingOptions,
    mode: { type: "string" },
    full: { type: "boolean", default: false },
    debug: { type: "boolean", default: false },
    width: { type: "string" },
    links: { type: "boolean", default: false },
    "keep-colors": { type: "boolean", default: false },
  },
  async run(values, files, io) {
    const mode = chooseMode(values.mode as string | undefined, io);
    const verbosity: Verbosity = values.debug === true ? "debug" : values.full === true ? "full" : values.verbose === true ? "verbose" : values.quiet === true ? "quiet" : "normal";
    // A pipe has no width of its own: $COLUMNS (what the shell says the terminal is) stands in, else 80.
    const envColumns = Number(io.env.COLUMNS);
    let width = io.stdout.columns ?? (Number.isInteger(envColumns) && envColumns >= 20 ? envColumns : 80);
    if (values.width !== undefined) {
      width = Number(values.width);
      if (!Number.isInteger(width) || width < 20) throw new AgentStreamError("usage", `--width takes a whole number of columns, at least 20, not "${String(values.width)}"`);
    }
    let pending: string[] = [];
    let wrote = false; // the current session's renderer has written something
    const createRenderer = () =>
      createTerminalRenderer({
        write: (text) => {
          wrote = true;
          pending.push(text);
        },
        mode,
        width,
        verbosity,
        links: values.links === true,
        keepColors: values["keep-colors"] === true,
      });
    // Each session (each input, and each session of a concatenated input) gets its own renderer:
    // its own header and footer, and what it left open is closed where it ends, not at the very end.
    let renderer = createRenderer();
    let currentInput: string | undefined;
    const nextSession = (): void => {
      renderer.end();
      if (wrote) pending.push("\n"); // a blank line between one session's footer and the next header
      wrote = false;
      renderer = createRenderer();
    };
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const text = pending.join("");
      pending = [];
      await io.stdout.write(text);
    };
    // In a GitHub Actions job, stop the runner from acting on "::command::" lines in agent or tool text.
    const ciToken = io.env.GITHUB_ACTIONS === "true" ? `agentstream-${randomUUID()}` : undefined;
    if (ciToken !== undefined) await io.stdout.write(`::stop-commands::${ciToken}\n`);
    const reading = { ...(values as ReadingValues), verbose: false, "include-raw": values.debug === true || values["include-raw"] === true };
    try {
      const runs = await readInputs(files, io, reading, {
        onEvent(event, input) {
          if (currentInput !== undefined && input !== currentInput) nextSession();
          currentInput = input;
          renderer.render(event);
        },
        onSessionBoundary: nextSession,
        onChunk: flush,
      });
      renderer.end();
      await flush();
      return readingStatus(runs, values as ReadingValues);
    } finally {
      if (ciToken !== undefined) await io.stdout.write(`::${ciToken}::\n`);
    }
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
