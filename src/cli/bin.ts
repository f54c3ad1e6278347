#!/usr/bin/env node
/**
 * The program. Built as CommonJS (scripts/build-cli.mjs: dist/cli/bundle/bin.cjs, the package's `bin` through
 * dist/cli/bin.cjs); it imports the list of commands (run.ts), which imports the command named when it runs.
 * The process ends by itself once the command's work is done: a command closes what it opened.
 */
import { processIo } from "./node-io.ts";

// A closed pipe (`agentstream convert big.jsonl | head`) ends the program quietly, unless the command listens for
// it itself (`CliOutput.onClosed`: `run` lets its agent run on to its end and keeps its logs, docs/run.md).
for (const stream of [process.stdout, process.stderr]) {
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code === "EPIPE") {
      if (stream.listeners("error").some((listener) => listener !== onError)) return;
      process.exit(process.exitCode ?? 0);
    }
    throw error;
  };
  stream.on("error", onError);
}

async function main(argv: readonly string[]): Promise<void> {
  process.exitCode = await (await import("./run.ts")).run(argv, processIo());
}

// A failure of ours (not of the input: those are exit codes) ends the program with its stack, as an uncaught error.
main(process.argv.slice(2)).catch((error: unknown) => {
  process.nextTick(() => {
    throw error;
  });
});
