/**
 * A Source is where one input's bytes come from: a file, stdin; next a child process, a followed
 * file, a NATS subscription. The pipeline (../_input.ts) reads each source in turn.
 */

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
  chunks(): AsyncIterable<Uint8Array | string>;
}
