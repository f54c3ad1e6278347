/**
 * A Source is where one input's bytes come from: a file, stdin, a child process, a followed file
 * (follow.ts); next a NATS subscription. The pipeline (../input.ts) reads each source in turn.
 */
import type { Issue } from "../../errors.ts";

/**
 * Said by a source in place of a chunk when its input started again (a followed file truncated or
 * replaced): what was read so far is ended as it is, and what follows is read from its start by a
 * fresh reader (line numbers from 1), so old and new bytes are never joined into one line.
 */
export interface SourceRestart {
  /** Why: reported like any input issue (stderr, the summary). */
  readonly restart: Issue;
}

/** What a source's chunks are. */
export type SourceChunk = Uint8Array | string | SourceRestart;

/** Whether a chunk is a restart. */
export function isRestart(chunk: SourceChunk): chunk is SourceRestart {
  return typeof chunk === "object" && "restart" in chunk;
}

/** One input, read once. */
export interface Source {
  /** The name diagnostics use: the file name, or `<stdin>`. */
  readonly name: string;
  /** Size in bytes when known in advance (a file): drives the progress line on big inputs. */
  readonly size?: number | undefined;
  /** Data arrives while a program runs (a pipe, a child process): worth priming the pipeline for the first line. */
  readonly live?: boolean;
  /** A person types the input (stdin is a terminal): say how to end it, or the command looks hung. */
  readonly interactive?: boolean;
  /** The input's chunks; may throw (ENOENT, EISDIR, ...) when called or while iterating: an I/O error on this input. */
  chunks(): AsyncIterable<SourceChunk>;
}
