/** Sources over the CLI's file arguments and stdin. */
import type { CliIo } from "../io.ts";
import type { Source } from "./source.ts";

/** A named file, opened when it is read (so a missing file fails as that input's I/O error). */
export function fileSource(path: string, io: CliIo): Source {
  return { name: path, size: io.fileSize(path), chunks: () => io.openFile(path) };
}

/** The standard input (`-`, or no file named). */
export function stdinSource(io: CliIo): Source {
  return { name: "<stdin>", live: true, interactive: io.stdin.isTTY === true, chunks: () => io.stdin };
}

/** The sources the positional arguments name, in order: stdin when there are none, and for `-`. */
export function sourcesFromArguments(files: readonly string[], io: CliIo): Source[] {
  const inputs = files.length === 0 ? ["-"] : files;
  return inputs.map((file) => (file === "-" ? stdinSource(io) : fileSource(file, io)));
}
