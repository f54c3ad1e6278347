#!/usr/bin/env node
import { processIo } from "./node-io.ts";
import { run } from "./run.ts";

// A closed pipe (`agentstream convert big.jsonl | head`) ends the program quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}
process.exitCode = await run(process.argv.slice(2), processIo());
