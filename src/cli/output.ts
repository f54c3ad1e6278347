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

/** Batched output for a live stream of events (a running agent), where no chunk boundary says when to write. */
export interface LiveOutput extends BatchedOutput {
  /**
   * Call after each event: the text of one turn of the event loop goes out in one write (an agent's
   * burst is not a write per event), at the latest when 1 MB is queued, and then waits for the reader.
   */
  settle(): Promise<void>;
}

/** The most text a live stream queues before it waits for the consumer. */
const LIVE_QUEUE_LIMIT = 1 << 20;

export function createLiveOutput(target: CliOutput): LiveOutput {
  const batched = createBatchedOutput(target);
  let queued = 0;
  let scheduled = false;
  const flush = async (): Promise<void> => {
    scheduled = false;
    queued = 0;
    await batched.flush();
  };
  return {
    write(text) {
      queued += text.length;
      batched.write(text);
    },
    flush,
    async settle() {
      if (queued > LIVE_QUEUE_LIMIT) return flush();
      if (queued > 0 && !scheduled) {
        scheduled = true;
        setImmediate(() => void flush());
      }
    },
  };
}
