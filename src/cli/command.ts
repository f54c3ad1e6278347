import type { ParseArgsConfig } from "node:util";
import type { CliIo } from "./io.ts";

/** One `agentstream <command>`. `run` returns the exit code. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  run(values: Record<string, unknown>, positionals: string[], io: CliIo): Promise<number>;
}

/** Exit codes: the CLI's contract (docs/cli.md). */
export const EXIT = { ok: 0, issues: 1, usage: 2, io: 3, unreadable: 4 } as const;
