#!/usr/bin/env node
import { processIo } from "./node-io.ts";
import { isShortCommand, runShortCommand } from "./short-commands.ts";

// A closed pipe (`agentstream convert big.jsonl | head`) ends the program quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const argv = process.argv.slice(2);
const [name, ...args] = argv;
// `usage` and `sessions` run from their own script, compiled with V8's code cache (short-commands.ts).
const short = isShortCommand(name) ? await runShortCommand(name, args, process.env) : undefined;
process.exitCode = short ?? (await (await import("./run.ts")).run(argv, processIo()));
// A short command is over when it returns: it reads and writes its files synchronously and leaves no handle, timer
// or stream behind. It exits once what it printed is written: left to end by itself, Node first waits for V8's
// background work (optimizing compiles, sweeping), which nothing needs any more (7–8 ms after a `usage` over 3,000
// files, a re-run of 0.24–0.35 s: 11 pairs each).
if (short !== undefined && process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
