/** Sources over the CLI's file arguments and stdin, followed or not. */
import { AgentStreamError } from "../../errors.ts";
import { namesStore, storeInput } from "../../usage/discover.ts";
import type { OptionSpecs } from "../args.ts";
import type { CliIo } from "../io.ts";
import { followSource } from "./follow.ts";
import type { Source } from "./source.ts";

/**
 * A named file, opened when it is read (so a missing file fails as that input's I/O error). A session store's
 * database, or one session of it (`<database>#<session id>`, as `sessions` lists it), is read as the lines of its
 * session dialect (src/usage/store.ts).
 */
function fileSource(path: string, io: CliIo): Source {
  if (namesStore(path)) return { name: path, chunks: () => storeChunks(path, io) };
  return { name: path, size: io.fileSize(path), chunks: () => io.openFile(path) };
}

/** A store's lines, each ended by LF; anything not a store is read as a file after all. */
async function* storeChunks(path: string, io: CliIo): AsyncIterable<Uint8Array | string> {
  const input = storeInput(path);
  if (input === undefined) {
    yield* io.openFile(path);
    return;
  }
  if ("failed" in input) throw new Error(input.failed);
  for (const line of input.lines) yield `${line}\n`;
}

/** The standard input (`-`, or no file named). */
function stdinSource(io: CliIo): Source {
  return { name: "<stdin>", live: true, interactive: io.stdin.isTTY === true, chunks: () => io.stdin };
}

/** The sources the positional arguments name, in order: stdin when there are none, and for `-`. */
export function sourcesFromArguments(files: readonly string[], io: CliIo): Source[] {
  const inputs = files.length === 0 ? ["-"] : files;
  return inputs.map((file) => (file === "-" ? stdinSource(io) : fileSource(file, io)));
}

/** `--follow` / `-f`, for the commands that read a file as it grows (render, convert, summary). */
export const followOption = {
  follow: {
    type: "boolean",
    short: "f",
    default: false,
    description:
      "keep reading the file as it grows, like tail -F, until Ctrl-C (which prints the footer or summary); a truncated or replaced file is reported and read again from its start",
  },
} as const satisfies OptionSpecs;

/**
 * The sources of a reading command: with `follow`, the one file named, followed until the first
 * Ctrl-C (`release` puts Ctrl-C back to ending the program); else the files or stdin as they are.
 */
export function readingSources(files: readonly string[], io: CliIo, follow: boolean): { sources: Source[]; release(): void } {
  if (!follow) return { sources: sourcesFromArguments(files, io), release: () => undefined };
  // Followed files would have to be read side by side, each with its own reader: one per command.
  if (files.length !== 1 || files[0] === "-")
    throw new AgentStreamError("usage", "--follow takes exactly one file (not stdin); follow several with one agentstream each");
  const stop = new AbortController();
  const release = io.onInterrupt?.(() => stop.abort()) ?? (() => undefined);
  return { sources: [followSource(files[0] as string, { signal: stop.signal })], release };
}
