/**
 * The script of every command but `usage` and `sessions`: built as CommonJS into dist/cli/bundle/commands.cjs
 * (scripts/build-cli.mjs) and run by bin.ts through command-scripts.ts with V8's code cache. Each command's module
 * is still evaluated only when it runs (the list's `load`).
 */
import type { ScriptExports } from "./command-scripts.ts";
import { executeCommand } from "./execute.ts";
import { processIo } from "./node-io.ts";
import { commands } from "./run.ts";

export const run: ScriptExports["run"] = async (name, args, io = processIo()) => {
  const entry = commands.find((command) => command.name === name);
  if (entry === undefined) throw new Error(`commands.cjs holds no command ${name}`);
  return executeCommand(await entry.load(), args, io);
};
