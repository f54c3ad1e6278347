/** What the CLI needs from the outside world; `bin.ts` supplies the real one, tests a fake. */
export interface CliOutput {
  /** Writes text; may return a promise that resolves when the consumer has drained it (backpressure). */
  write(text: string): void | Promise<void>;
  /**
   * Writes UTF-8 bytes, the same way; present where the target takes bytes (a process stream), so a
   * batch of text is encoded straight into one buffer instead of being joined into one string first.
   */
  writeBytes?(bytes: Uint8Array): void | Promise<void>;
  readonly isTTY: boolean;
  /** Terminal width, when it is a terminal. */
  readonly columns?: number;
  /**
   * Calls `listener` once when the reader goes away (a closed pipe: `agentstream run … | head`). While one is
   * registered, a closed pipe does not end the program (bin.ts), and what is written after it is dropped. Returns
   * the function that removes it. Absent: the target never says so.
   */
  onClosed?(listener: () => void): () => void;
}

export interface CliIo {
  readonly stdin: AsyncIterable<Uint8Array | string> & { readonly isTTY?: boolean };
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Opens a file as a stream of chunks; throws (ENOENT, EISDIR, ...) when it cannot be read. */
  openFile(path: string): AsyncIterable<Uint8Array>;
  /** Size in bytes, or undefined when unknown. */
  fileSize(path: string): number | undefined;
  /**
   * Calls `listener` at the first Ctrl-C (SIGINT, SIGTERM, SIGHUP) instead of ending the program, so
   * a command that reads until interrupted (`--follow`) can end cleanly; a second one ends the
   * program at once. Returns the function that puts the default back. Absent: never interrupted.
   */
  onInterrupt?(listener: () => void): () => void;
}
