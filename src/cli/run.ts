/**
 * `agentstream <command> [options] [file ...]`: parses arguments with node:util parseArgs and
 * dispatches. Returns the exit code; never touches `process` (bin.ts does).
 */
import { parseArgs } from "node:util";
import { AgentStreamError } from "../errors.ts";
import { EXIT, type Command } from "./command.ts";
import { convert } from "./commands/convert.ts";
import { formats } from "./commands/formats.ts";
import { render } from "./commands/render.ts";
import { run as runAgentCommand } from "./commands/run.ts";
import { schema } from "./commands/schema.ts";
import { summary } from "./commands/summary.ts";
import { validate } from "./commands/validate.ts";
import type { CliIo } from "./io.ts";
import { VERSION } from "../version.ts";
import { wrapLine } from "../render/_width.ts";

/** Every command, in the order `--help` lists them. */
export const commands: readonly Command[] = [runAgentCommand, render, convert, summary, validate, schema, formats];

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
    await io.stderr.write(`agentstream: unknown command "${first}"${near ? `; did you mean "${near.name}"?` : ""} (see agentstream --help)\n`);
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
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], options: command.options, allowPositionals: true, strict: true }));
  } catch (error) {
    await io.stderr.write(`${usageLine(command, parseArgsReason(error))}\n`);
    return EXIT.usage;
  }
  try {
    return await command.run(values, positionals, io);
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

/**
 * Help text reflowed to the terminal (else $COLUMNS, else 80) at word boundaries: the lines of a
 * paragraph are joined and wrapped again, an option's description continues under its own column.
 */
function fitHelp(text: string, io: CliIo): string {
  const env = Number(io.env.COLUMNS);
  const width = Math.max(40, io.stdout.columns ?? (Number.isInteger(env) && env > 0 ? env : 80));
  const logical: { text: string; lead: number; column: number }[] = [];
  for (const row of text.split("\n")) {
    const lead = /^\s*/.exec(row)?.[0].length ?? 0;
    const previous = logical.at(-1);
    // A paragraph at the left edge goes on in the next line; so does an option's description, in its column.
    const continues = previous !== undefined && row.trim() !== "" && previous.text.trim() !== "" && !/^\s*-/.test(row) && (lead === 0 ? previous.lead === 0 && !previous.text.endsWith(":") : previous.column > previous.lead && lead === previous.column);
    if (continues) {
      previous.text += ` ${row.trim()}`;
      continue;
    }
    const option = /^(\s+\S.*?\s{2,})\S/.exec(row);
    logical.push({ text: row, lead, column: option !== null ? (option[1] as string).length : lead });
  }
  return logical
    .map(({ text: row, lead, column }) => {
      // An option's description under its column; an indented line (an example command) two further in.
      const hang = column > lead && column < width / 2 ? column : lead > 0 ? lead + 2 : 0;
      return wrapLine(row, width, 0, " ".repeat(Math.max(hang - lead, 0)));
    })
    .join("\n");
}

/** A usage error as one line in our words, with where to look: `agentstream render: unknown option --foo (see ...)`. */
function usageLine(command: Command, reason: string): string {
  return `agentstream ${command.name}: ${reason} (see agentstream ${command.name} --help)`;
}

/** node:util parseArgs errors carry a code; say the same thing in our words, on one line. */
function parseArgsReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/argument missing/.test(message)) return `${option ?? "an option"} needs a value`;
      if (/does not take an argument/.test(message)) return `${option ?? "an option"} takes no value`;
      return (message.split("\n")[0] ?? message).replace(/\.$/, "");
    default:
      return (message.split("\n")[0] ?? message).replace(/\.$/, "");
  }
}
