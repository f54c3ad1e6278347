/**
 * `agentstream <command> [options] [file ...]`: finds the command and runs it (each command parses
 * its own options, args.ts). Returns the exit code; never touches `process` (bin.ts does).
 */
import { fitHelp, type Command } from "./args.ts";
import { safeLine } from "./diagnostics.ts";
import { executeCommand } from "./execute.ts";
import { EXIT } from "./exit.ts";
import type { CliIo } from "./io.ts";
import { VERSION } from "../version.ts";

/**
 * A command as `--help` lists it; its module is imported only when it runs (a plain `import()`).
 * Importing every command would load the NATS client, the web server, the usage scanner and ajv at
 * every start, which each `agentstream convert` in a pipeline would pay for nothing. test/cli/commands.test.ts checks that
 * each entry's name and summary are the loaded command's.
 */
interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}

/** Every command, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: "run",
    summary: "run an agent CLI: live view, heartbeats, timeouts, signals, logs, exit code",
    load: async () => (await import("./commands/run.ts")).run,
  },
  {
    name: "render",
    summary: "show any agent's stream, live or saved, as a person would read it",
    load: async () => (await import("./commands/render.ts")).render,
  },
  {
    name: "serve",
    summary: "a local web page: sessions found under paths, live runs streaming as the agent works",
    load: async () => (await import("./commands/serve.ts")).serve,
  },
  {
    name: "convert",
    summary: "convert any agent's output to another format (NDJSON out)",
    load: async () => (await import("./commands/convert.ts")).convert,
  },
  {
    name: "summary",
    summary: "one session's facts: agent, model, status, final text, tool calls, usage, cost",
    load: async () => (await import("./commands/summary.ts")).summary,
  },
  {
    name: "html",
    summary: "one self-contained HTML page per session: conversation, tool calls, diffs, tokens and cost",
    load: async () => (await import("./commands/html.ts")).html,
  },
  {
    name: "sessions",
    summary: "one row per agent session found: agent, project, start, duration, models, status, tokens, cost",
    load: async () => (await import("./commands/sessions.ts")).sessions,
  },
  {
    name: "search",
    summary: "find anything any agent did: prompts, answers, tool calls and the files they touched, newest first",
    load: async () => (await import("./commands/search.ts")).search,
  },
  {
    name: "usage",
    summary: "tokens and cost of every session on the machine, by day, week, month, session, model, project or agent",
    load: async () => (await import("./commands/usage.ts")).usage,
  },
  {
    name: "mcp",
    summary: "a Model Context Protocol server on stdio: agents list, summarize, read and count the saved sessions (docs/mcp.md)",
    load: async () => (await import("./commands/mcp.ts")).mcp,
  },
  {
    name: "validate",
    summary: "check a stream: framing, schema and sequence rules (exit 1 on any issue)",
    load: async () => (await import("./commands/validate.ts")).validate,
  },
  {
    name: "publish",
    summary: "publish any agent's stream to NATS JetStream, one subject per session (docs/fleet.md)",
    load: async () => (await import("./commands/publish.ts")).publish,
  },
  {
    name: "tail",
    summary: "watch the sessions published to NATS JetStream, live or from any point (docs/fleet.md)",
    load: async () => (await import("./commands/tail.ts")).tail,
  },
  {
    name: "otlp",
    summary: "export saved sessions as OpenTelemetry GenAI traces (OTLP/HTTP), each once (docs/otel.md)",
    load: async () => (await import("./commands/otlp.ts")).otlp,
  },
  {
    name: "schema",
    summary: "print the JSON Schema (2020-12) of a format",
    load: async () => (await import("./commands/schema.ts")).schema,
  },
  {
    name: "formats",
    summary: "list the input dialects and output formats",
    load: async () => (await import("./commands/formats.ts")).formats,
  },
];

/** `render` on a terminal, else `convert`: what a bare `agentstream` (or `agentstream file.jsonl`) does. */
function defaultCommand(io: CliIo): CommandEntry {
  return commandNamed(io.stdout.isTTY ? "render" : "convert");
}

function commandNamed(name: string): CommandEntry {
  const entry = commands.find((c) => c.name === name);
  if (entry === undefined) throw new Error(`no command ${name}`);
  return entry;
}

function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return `agentstream ${VERSION}: read any LLM agent's event stream, repair it, normalize it, validate it,
write it out in other formats, and show it to people.

Usage: agentstream <command> [options] [file ...]     (no file, or "-", reads stdin)

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join("\n")}

Options:
  -h, --help       help for agentstream or a command (agentstream <command> --help)
  --version        print the version

Examples:
  agentstream run -- claude -p "fix the tests" --output-format stream-json --verbose
  claude -p "fix the tests" --output-format stream-json --verbose | agentstream render
  codex exec --json "add a README" | agentstream summary --json
  agentstream convert --to agentstream session.jsonl > events.ndjson
  agentstream validate events.ndjson
  agentstream usage --by day --by model

Exit status: 0 ok, 1 the input had issues (validate, --strict), 2 usage error, 3 I/O error,
4 nothing could be read (empty, not text, or no dialect recognised: try --from);
run exits with the agent's status (docs/run.md).
Docs: docs/cli.md, docs/events.md`;
}

/** Runs the CLI with `argv` (without node and the script) and returns the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    if (io.stdin.isTTY === true) {
      await io.stdout.write(`${mainHelp()}\n`);
      return EXIT.ok;
    }
    // Piped input and no command: the most useful thing is to show it.
    return runCommand(defaultCommand(io), [], io);
  }
  if (first === "--version" || first === "-V") {
    await io.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = commands.find((c) => c.name === rest[0]);
    await io.stdout.write(`${fitHelp(topic ? (await topic.load()).help : mainHelp(), io)}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === first);
  if (command === undefined) {
    if (first.startsWith("-") || first.includes(".") || first.includes("/")) {
      // `agentstream file.jsonl` or `agentstream --from codex`: render (or convert) without naming the command.
      return runCommand(defaultCommand(io), [...argv], io);
    }
    const near = commands.find((c) => c.name.startsWith(first.slice(0, 3)));
    await io.stderr.write(
      `${safeLine(`agentstream: unknown command "${first}"${near ? `; did you mean "${near.name}"?` : ""} (see agentstream --help)`)}\n`,
    );
    return EXIT.usage;
  }
  return runCommand(command, rest, io);
}

async function runCommand(entry: CommandEntry, args: readonly string[], io: CliIo): Promise<number> {
  return executeCommand(await entry.load(), args, io);
}
