/**
 * Output batching and backpressure, in one place: sinks `write` as much text as they like; the
 * pipeline calls `flush` after each input chunk, so stdout gets one write per chunk read (not one
 * per event) and the next chunk is read only once the consumer drained the last write.
 * A closed pipe (`agentstream convert big.jsonl | head`) ends the program quietly in bin.ts.
 */
import type { CliOutput } from "./io.ts";

/** Text written by sinks, held until the next flush. */
export interface BatchedOutput {
  /** Queues text; nothing reaches the target until `flush`. */
  write(text: string): void;
  /** Writes what was queued as one piece, waiting for the target to drain it. */
  flush(): Promise<void>;
}

export function createBatchedOutput(target: CliOutput): BatchedOutput {
  let pending: string[] = [];
  return {
    write(text) {
      if (text.length > 0) pending.push(text);
    },
    async flush() {
      if (pending.length === 0) return;
      const text = pending.join("");
      pending = [];
      await target.write(text);
    },
  };
}
