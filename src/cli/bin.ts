#!/usr/bin/env node
/**
 * The program. Built as CommonJS (scripts/build-cli.mjs: dist/cli/bundle/bin.cjs, the package's `bin` through
 * dist/cli/bin.cjs): an ES module entry costs Node ~5–10 ms more to start, which every run would pay.
 */
import { processIo } from "./node-io.ts";
import { runCommandScript, scriptOf } from "./command-scripts.ts";

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

/** Commands of a script that is not `endsOnReturn` that still end when they return (see below). */
const EXITS_ON_RETURN: ReadonlySet<string> = new Set(["publish"]);

async function main(argv: readonly string[]): Promise<void> {
  const [name, ...args] = argv;
  // A command runs from its script, compiled with V8's code cache (command-scripts.ts); the rest from run.ts.
  const script = scriptOf(name);
  const fromScript =
    script === undefined || name === undefined ? undefined : await runCommandScript(script, name, args, { env: process.env });
  process.exitCode = fromScript ?? (await (await import("./run.ts")).run(argv, processIo()));
  // `usage` and `sessions` exit once what they printed is written: left to end by itself, Node first waits for V8's
  // background work (optimizing compiles, sweeping), which nothing needs any more (7–8 ms after a `usage` over
  // 3,000 files, a re-run of 0.24–0.35 s: 11 pairs each).
  // `publish` exits once its last line is written too: the NATS client leaves the socket of a dial that timed out
  // (a server that stopped answering) open, which would keep the process alive until that server answers again.
  if (
    fromScript !== undefined &&
    (script?.endsOnReturn === true || EXITS_ON_RETURN.has(name as string)) &&
    process.stdout.writableLength === 0 &&
    process.stderr.writableLength === 0
  ) {
    process.exit();
  }
}

// A failure of ours (not of the input: those are exit codes) ends the program with its stack, as an uncaught error.
main(process.argv.slice(2)).catch((error: unknown) => {
  process.nextTick(() => {
    throw error;
  });
});
