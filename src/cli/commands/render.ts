import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { outputEnds } from "../../views/terminal/state.ts";
import type { RenderMode, Verbosity } from "../../views/terminal/create-terminal-renderer.ts";
import { AgentStreamError } from "../../errors.ts";
import { readInputs, readingStatus } from "../input.ts";
import { defineCommand, type ParsedValues } from "../args.ts";
import type { CliIo } from "../io.ts";
import { viewVerbosity, viewWidth } from "../view-options.ts";
import { createBatchedOutput } from "../output.ts";
import { readingOptions } from "../reading-options.ts";
import { createRendererSink } from "../sinks/renderer-sink.ts";
import { followOption, readingSources } from "../sources/files.ts";

// In render, -v and -q set how much is shown: they replace the input options of the same name.
const { verbose: _diagnosticsVerbose, quiet: _diagnosticsQuiet, ...inputOptions } = readingOptions;

const renderOptions = {
  mode: {
    type: "string",
    valueHint: "<mode>",
    choices: ["full", "basic", "none"],
    description: "full | basic | none (default: chosen from the terminal, NO_COLOR, FORCE_COLOR, CLICOLOR, CLICOLOR_FORCE, TERM=dumb)",
  },
  quiet: { type: "boolean", short: "q", default: false, description: "answers, tool calls, errors, metrics and the footer only" },
  verbose: {
    type: "boolean",
    short: "v",
    default: false,
    description: "also notices, repairs, unknown records, system messages, more output",
  },
  full: { type: "boolean", default: false, description: "everything, nothing cut" },
  at: {
    type: "string",
    valueHint: "<event>",
    description: "start at this event (its number, as `agentstream search` prints it: #42); the header is still shown",
  },
  debug: { type: "boolean", default: false, description: "each event as one line of JSON (with the agent's raw record)" },
  width: {
    type: "string",
    valueHint: "<n>",
    description: "wrap and fit lines to n columns (default: the terminal's, else $COLUMNS, else 80)",
  },
  links: { type: "boolean", default: false, description: "make http(s) URLs clickable (OSC 8 links we build; the URL is the text)" },
  "keep-colors": {
    type: "boolean",
    default: false,
    description: "keep the colours (SGR only) of tool output; other sequences stay visible",
  },
  ...followOption,
  ...inputOptions,
} as const;

export const render = defineCommand({
  name: "render",
  summary: "show any agent's stream, live or saved, as a person would read it",
  usage: "render [options] [file ...]",
  description: `Shows agent output in the terminal as it happens: messages, reasoning, tool calls with their key
argument and (cut) output, file changes, plans, errors, metrics and a footer with status, duration,
turns, tokens and cost. Subagents are indented under the call that started them. Append-only (no
cursor movement): it reads right in a terminal at any width, a pipe, a CI log or a file. Escape
sequences and control characters in agent and tool text are shown as visible symbols, never run.`,
  options: renderOptions,
  notes: "  (in render, -v and -q set how much is shown; -q also silences input diagnostics on stderr)",
  examples: [
    'claude -p "fix the tests" --output-format stream-json --verbose | agentstream render',
    "agentstream render -f agent-output.jsonl   # as the agent writes it; Ctrl-C prints the footer",
  ],
  async run({ values, positionals, io }) {
    const output = createBatchedOutput(io.stdout);
    const verbosity = chooseVerbosity(values);
    const width = viewWidth(values.width, io);
    const reading = { ...values, verbose: false, "include-raw": values.debug || values["include-raw"] };
    const startAt = eventNumber(values.at, positionals, values.follow);
    // The view shows a long tool output's first and last lines: only those are read (the rest is checked, not
    // decoded), unless the raw records are shown too.
    const toolOutputEnds = reading["include-raw"] ? undefined : outputEnds(verbosity, width);
    const sink = createRendererSink(
      {
        mode: chooseMode(values.mode, io),
        width,
        verbosity,
        links: values.links,
        keepColors: values["keep-colors"],
        ...(toolOutputEnds === undefined ? {} : { cutMarker: toolOutputEnds.marker }),
      },
      output,
      { ...(values.follow ? { stillWritten: writtenLately } : {}), ...(startAt === undefined ? {} : { startAt }) },
    );
    const { sources, release } = readingSources(positionals, io, values.follow);
    // In a GitHub Actions job, stop the runner from acting on "::command::" lines in agent or tool text.
    const ciToken = io.env.GITHUB_ACTIONS === "true" ? `agentstream-${randomUUID()}` : undefined;
    if (ciToken !== undefined) await io.stdout.write(`::stop-commands::${ciToken}\n`);
    try {
      // The view shows text, not records: a run of deltas in one chunk is one event to redact and lay out
      // (with --debug or --include-raw the reader keeps each event with its record).
      const ends = toolOutputEnds === undefined ? {} : { toolOutputEnds };
      // With --at, events are numbered as every other reading numbers them (search, html): one per delta.
      const runs = await readInputs({ sources, io, reading, sink, output, joinDeltas: startAt === undefined, ...ends });
      return readingStatus(runs, values);
    } finally {
      release();
      if (ciToken !== undefined) await io.stdout.write(`::${ciToken}::\n`);
    }
  },
});

/** `--at <event>` (`42` or `#42`, as search prints it), for one saved file: events are numbered per input. */
function eventNumber(at: string | undefined, files: readonly string[], follow: boolean): number | undefined {
  if (at === undefined) return undefined;
  const text = at.startsWith("#") ? at.slice(1) : at;
  if (!/^\d+$/.test(text)) throw new AgentStreamError("usage", `--at takes an event number (as search prints it: #42), not "${at}"`);
  if (files.length !== 1 || files[0] === "-" || follow)
    throw new AgentStreamError("usage", "--at takes one saved session file (events are numbered per file)");
  return Number(text);
}

/**
 * A followed file changed this recently is taken to be still written: a saved session log (no result record by
 * nature) then ends as unfinished, not as ended (docs/render.md). An agent writes its session log at every message
 * and tool result; a minute without one, it is waiting for a person or done.
 */
const STILL_WRITTEN_MS = 60_000;

function writtenLately(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < STILL_WRITTEN_MS;
  } catch {
    return false; // gone: nothing writes it any more
  }
}

function chooseVerbosity(values: ParsedValues<typeof renderOptions>): Verbosity {
  if (values.debug) return "debug";
  if (values.full) return "full";
  return viewVerbosity(values);
}

/** Picks the render mode from --mode, then the environment conventions, then whether stdout is a terminal. */
export function chooseMode(flag: string | undefined, io: Pick<CliIo, "env" | "stdout">): RenderMode {
  if (flag !== undefined) {
    if (flag !== "full" && flag !== "basic" && flag !== "none")
      throw new AgentStreamError("usage", `--mode takes full, basic or none, not "${flag}"`);
    return flag;
  }
  const env = io.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return "none";
  if (env.TERM === "dumb") return "none";
  const forced =
    (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false") ||
    (env.CLICOLOR_FORCE !== undefined && env.CLICOLOR_FORCE !== "0");
  if (forced) return io.stdout.isTTY ? "full" : "basic";
  if (env.FORCE_COLOR === "0" || env.CLICOLOR === "0") return "none";
  return io.stdout.isTTY ? "full" : "none";
}
