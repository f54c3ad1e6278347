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
  /** Queues UTF-8 bytes (text already encoded, such as a long tool output shared by two fields); the caller must not change them. */
  writeBytes(bytes: Uint8Array): void;
  /** Writes what was queued as one piece, waiting for the target to drain it. */
  flush(): Promise<void>;
}

export function createBatchedOutput(target: CliOutput): BatchedOutput {
  let pending: (string | Uint8Array)[] = [];
  let pendingLength = 0;
  let holdsBytes = false;
  const take = (): (string | Uint8Array)[] => {
    const parts = pending;
    pending = [];
    pendingLength = 0;
    holdsBytes = false;
    return parts;
  };
  return {
    write(text) {
      if (text.length === 0) return;
      pending.push(text);
      pendingLength += text.length;
    },
    writeBytes(bytes) {
      if (bytes.length === 0) return;
      pending.push(bytes);
      pendingLength += bytes.length;
      holdsBytes = true;
    },
    async flush() {
      if (pending.length === 0) return;
      const length = pendingLength;
      const mixed = holdsBytes;
      const parts = take();
      if (target.writeBytes !== undefined) await target.writeBytes(encodeParts(parts, length));
      else await target.write(mixed ? parts.map(asText).join("") : (parts as string[]).join(""));
    },
  };
}

const asText = (part: string | Uint8Array): string =>
  typeof part === "string" ? part : Buffer.from(part.buffer, part.byteOffset, part.length).toString("utf8");

/** Up to this many UTF-16 units, a batch's buffer is sized for the worst case (3 bytes each) rather than measured. */
const WORST_CASE_SIZED = 1 << 20;

/**
 * The parts' UTF-8 encoding in one fresh buffer (the target may hold it until written): faster than
 * joining the parts into one string that the stream then encodes, which copies every part twice.
 */
function encodeParts(parts: readonly (string | Uint8Array)[], length: number): Uint8Array {
  let size = 0;
  for (const part of parts)
    size += typeof part !== "string" ? part.length : length > WORST_CASE_SIZED ? Buffer.byteLength(part) : part.length * 3;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const part of parts) {
    if (typeof part === "string") at += bytes.write(part, at);
    else {
      bytes.set(part, at);
      at += part.length;
    }
  }
  return bytes.subarray(0, at);
}

/** Batched output for a live stream of events (a running agent), where no chunk boundary says when to write. */
export interface LiveOutput extends BatchedOutput {
  /**
   * Call after each event: the text of one turn of the event loop goes out in one write (an agent's
   * burst is not a write per event), at the latest when LIVE_QUEUE_LIMIT is queued, and then waits for the reader.
   * Returns a promise only then: an event that need not wait costs its consumer no await.
   */
  settle(): Promise<void> | undefined;
}

/**
 * The most text a live stream queues before it waits for the consumer. One turn of the event loop can read
 * many pipe chunks of a flooding agent; text queued across them outlives the young generation's collections,
 * and each such string is promoted to the old generation, whose garbage is most of `run`'s peak memory.
 * A few tens of KB still make one write of a chunk's text.
 */
const LIVE_QUEUE_LIMIT = 1 << 16;

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
    writeBytes(bytes) {
      queued += bytes.length;
      batched.writeBytes(bytes);
    },
    flush,
    settle() {
      if (queued > LIVE_QUEUE_LIMIT) return flush();
      if (queued > 0 && !scheduled) {
        scheduled = true;
        setImmediate(() => void flush());
      }
      return undefined;
    },
  };
}
