/** The real CliIo over process streams and the file system (Node only). */
import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";
import { constants } from "node:os";
import type { CliIo, CliOutput } from "./io.ts";

function output(stream: NodeJS.WriteStream): CliOutput {
  const write = (data: string | Uint8Array): void | Promise<void> => {
    // The reader went away (a command that listens for it runs on): nothing more reaches it.
    if (stream.destroyed) return;
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
    onClosed(listener) {
      // bin.ts ends the program at a closed pipe unless another "error" listener, this one, takes it.
      let said = false;
      const onError = (error: NodeJS.ErrnoException): void => {
        if (error.code !== "EPIPE" || said) return;
        said = true;
        listener();
      };
      stream.on("error", onError);
      return () => {
        stream.off("error", onError);
      };
    },
  };
}

const CHUNK_BYTES = 256 * 1024;
/** Chunks read between two turns of the event loop (4 MiB): signals, timers and output drains run between them. */
const CHUNKS_PER_TURN = 16;

/**
 * A regular file's chunks, read synchronously: a page-cache read is a copy, and a read stream's trip through
 * the thread pool for each chunk left the main thread idle between chunks. A pipe or
 * a device is read as a stream (a synchronous read there would block until its writer writes).
 */
async function* readRegularFile(path: string): AsyncGenerator<Uint8Array> {
  const fd = openSync(path, "r");
  try {
    for (let count = 1; ; count++) {
      const chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) return;
      yield read === CHUNK_BYTES ? chunk : chunk.subarray(0, read);
      if (count % CHUNKS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    closeSync(fd);
  }
}

export function processIo(): CliIo {
  return {
    // Made when a command first reads it: opening standard input (a stream over a pipe, a file or a terminal)
    // costs a few milliseconds that `usage`, `sessions` and the others that name their files never need.
    get stdin() {
      return process.stdin;
    },
    stdout: output(process.stdout),
    stderr: output(process.stderr),
    env: process.env,
    openFile(path) {
      const stats = statSync(path); // throws ENOENT / EACCES before we start
      if (stats.isDirectory()) throw new Error(`${path} is a directory`);
      return stats.isFile() ? readRegularFile(path) : createReadStream(path, { highWaterMark: CHUNK_BYTES });
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
