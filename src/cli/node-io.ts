/** The real CliIo over process streams and the file system (Node only). */
import { createReadStream, statSync } from "node:fs";
import { constants } from "node:os";
import type { CliIo, CliOutput } from "./io.ts";

function output(stream: NodeJS.WriteStream): CliOutput {
  const write = (data: string | Uint8Array): void | Promise<void> => {
    if (stream.write(data)) return;
    // Backpressure: wait until the consumer drained what we wrote (or the pipe closed).
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stream.off("drain", done);
        stream.off("close", done);
        resolve();
      };
      stream.once("drain", done);
      stream.once("close", done);
    });
  };
  return {
    write,
    writeBytes: write,
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
  };
}

export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: output(process.stdout),
    stderr: output(process.stderr),
    env: process.env,
    openFile(path) {
      const stats = statSync(path); // throws ENOENT / EACCES before we start
      if (stats.isDirectory()) throw new Error(`${path} is a directory`);
      return createReadStream(path, { highWaterMark: 256 * 1024 });
    },
    onInterrupt(listener) {
      const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
      let interrupted = false;
      const handler = (signal: NodeJS.Signals): void => {
        if (interrupted) process.exit(128 + (constants.signals[signal] ?? 0));
        interrupted = true;
        listener();
      };
      for (const signal of signals) process.on(signal, handler);
      return () => {
        for (const signal of signals) process.off(signal, handler);
      };
    },
    fileSize(path) {
      try {
        return statSync(path).size;
      } catch {
        return undefined;
      }
    },
  };
}
