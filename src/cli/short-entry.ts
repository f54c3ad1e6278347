/**
 * The script of `usage` and `sessions`: built on its own, as CommonJS, into dist/cli/bundle/short.cjs
 * (scripts/build-cli.mjs), and run by bin.ts through command-scripts.ts with V8's code cache. It holds these
 * commands and what they use only: a run over the caches takes 0.2–0.3 s, and a script with every command in it
 * would cost them ~20 ms more to load.
 */
import { sessions } from "./commands/sessions.ts";
import { usage } from "./commands/usage.ts";
import type { ScriptExports } from "./command-scripts.ts";
import { executeCommand } from "./execute.ts";
import { processIo } from "./node-io.ts";

const COMMANDS = { sessions, usage } as const;

export const run: ScriptExports["run"] = async (name, args, io = processIo()) => {
  const command = name === "sessions" || name === "usage" ? COMMANDS[name] : undefined;
  if (command === undefined) throw new Error(`short.cjs holds no command ${name}`);
  return executeCommand(command, args, io);
};
