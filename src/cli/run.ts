/**
 * `agentstream <command> [options] [file ...]`: finds the command and runs it (each command parses
 * its own options, args.ts). Returns the exit code; never touches `process` (bin.ts does).
 */
import { AgentStreamError } from "../errors.ts";
import { fitHelp, type Command } from "./args.ts";
import { EXIT } from "./exit.ts";
import { convert } from "./commands/convert.ts";
import { formats } from "./commands/formats.ts";
import { html } from "./commands/html.ts";
import { publish } from "./commands/publish.ts";
import { render } from "./commands/render.ts";
import { run as runAgentCommand } from "./commands/run.ts";
import { schema } from "./commands/schema.ts";
import { serve } from "./commands/serve.ts";
import { sessions } from "./commands/sessions.ts";
import { summary } from "./commands/summary.ts";
import { tail } from "./commands/tail.ts";
import { usage } from "./commands/usage.ts";
import { validate } from "./commands/validate.ts";
import type { CliIo } from "./io.ts";
import { VERSION } from "../version.ts";

/** Every command, in the order `--help` lists them. */
const commands: readonly Command[] = [
  runAgentCommand,
  render,
  serve,
  convert,
  summary,
  html,
  sessions,
  usage,
  validate,
  publish,
  tail,
  schema,
  formats,
];

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
    return runCommand(io.stdout.isTTY ? render : convert, [], io);
  }
  if (first === "--version" || first === "-V") {
    await io.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = commands.find((c) => c.name === rest[0]);
    await io.stdout.write(`${fitHelp(topic ? topic.help : mainHelp(), io)}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === first);
  if (command === undefined) {
    if (first.startsWith("-") || first.includes(".") || first.includes("/")) {
      // `agentstream file.jsonl` or `agentstream --from codex`: render (or convert) without naming the command.
      return runCommand(io.stdout.isTTY ? render : convert, [...argv], io);
    }
    const near = commands.find((c) => c.name.startsWith(first.slice(0, 3)));
    await io.stderr.write(
      `agentstream: unknown command "${first}"${near ? `; did you mean "${near.name}"?` : ""} (see agentstream --help)\n`,
    );
    return EXIT.usage;
  }
  return runCommand(command, rest, io);
}

async function runCommand(command: Command, args: readonly string[], io: CliIo): Promise<number> {
  // After "--" the arguments are the agent's (`agentstream run -- claude --help`), not ours.
  const end = args.indexOf("--");
  const ours = end === -1 ? args : args.slice(0, end);
  if (ours.includes("--help") || ours.includes("-h")) {
    await io.stdout.write(`${fitHelp(command.help, io)}\n`);
    return EXIT.ok;
  }
  try {
    return await command.execute(args, io);
  } catch (error) {
    if (!AgentStreamError.is(error)) throw error;
    if (error.code === "io" || error.code === "strict-issue") {
      await io.stderr.write(`agentstream ${command.name}: ${error.message}\n`);
      return error.code === "io" ? EXIT.io : EXIT.issues;
    }
    await io.stderr.write(`${usageLine(command, error.message)}\n`);
    return EXIT.usage;
  }
}

/** A usage error as one line in our words, with where to look: `agentstream render: unknown option --foo (see ...)`. */
function usageLine(command: Command, reason: string): string {
  return `agentstream ${command.name}: ${reason} (see agentstream ${command.name} --help)`;
}
