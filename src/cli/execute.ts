/**
 * Runs one loaded command: its `--help`, its run, and its errors turned into exit codes and one line on stderr.
 * `run` (run.ts) finds the command among all of them and hands it here.
 */
import { AgentStreamError } from "../errors.ts";
import { fitHelp, type Command } from "./args.ts";
import { safeLine } from "./diagnostics.ts";
import { EXIT } from "./exit.ts";
import type { CliIo } from "./io.ts";
import { asksForHelp } from "./own-arguments.ts";

export async function executeCommand(command: Command, args: readonly string[], io: CliIo): Promise<number> {
  if (asksForHelp(args)) {
    await io.stdout.write(`${fitHelp(command.help, io)}\n`);
    return EXIT.ok;
  }
  try {
    return await command.execute(args, io);
  } catch (error) {
    if (!AgentStreamError.is(error)) throw error;
    if (error.code === "io" || error.code === "strict-issue") {
      // A strict read's message quotes the input (a record type): never raw on a terminal.
      await io.stderr.write(`${safeLine(`agentstream ${command.name}: ${error.message}`)}\n`);
      return error.code === "io" ? EXIT.io : EXIT.issues;
    }
    await io.stderr.write(`${safeLine(usageLine(command, error.message))}\n`);
    return EXIT.usage;
  }
}

/** A usage error as one line in our words, with where to look: `agentstream render: unknown option --foo (see ...)`. */
function usageLine(command: Command, reason: string): string {
  return `agentstream ${command.name}: ${reason} (see agentstream ${command.name} --help)`;
}
