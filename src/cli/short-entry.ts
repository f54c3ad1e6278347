/**
 * The short commands' script: built on its own, as CommonJS, into dist/cli/bundle/short.cjs (scripts/build-cli.mjs),
 * and run by bin.ts through short-commands.ts with V8's code cache. It holds these commands and what they use only.
 */
import { sessions } from "./commands/sessions.ts";
import { usage } from "./commands/usage.ts";
import { executeCommand } from "./execute.ts";
import { processIo } from "./node-io.ts";
import type { ShortScript } from "./short-commands.ts";

const COMMANDS = { sessions, usage } as const;

export const run: ShortScript["run"] = (name, args) => executeCommand(COMMANDS[name], args, processIo());
