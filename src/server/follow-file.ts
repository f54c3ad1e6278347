/**
 * A small file follower for the server: the bytes of a file as they are appended, until the file is
 * known to be finished. (The CLI's `--follow` source is built separately; this one only needs what
 * a log written by `agentstream run --log` needs: appends, no rotation.)
 */
import { watch, type FSWatcher } from "node:fs";
import { open } from "node:fs/promises";

/** Options for {@link followFile}. */
export interface FollowOptions {
  /** Asked at the end of the data: true when nothing more will be appended (one last read follows). */
  readonly finished: () => boolean;
  /** Ends the follow at once. */
  readonly signal?: AbortSignal;
  /** The longest wait between two looks when no change notification comes. @defaultValue 250 */
  readonly pollMs?: number;
}

const CHUNK_BYTES = 256 * 1024;

/**
 * Reads `path` from its start and goes on reading what is appended, until `finished()` says the
 * writer is done (then reads what is left and returns) or `signal` aborts.
 * @example
 * for await (const chunk of followFile("run.events.ndjson", { finished: () => existsSync("run.summary.json") })) reader.feed(chunk);
 */
export async function* followFile(path: string, options: FollowOptions): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  const changes = changeNotifier(path, options.pollMs ?? 250);
  let position = 0;
  try {
    while (options.signal?.aborted !== true) {
      // Asked before reading: what is read after a "finished" answer is everything the writer wrote.
      const last = options.finished();
      for (;;) {
        const buffer = new Uint8Array(CHUNK_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
      if (last) return;
      await changes.next(options.signal);
    }
  } finally {
    changes.close();
    await handle.close();
  }
}

/** Resolves `next()` on the next change notification for the file, or after `pollMs` at most. */
function changeNotifier(path: string, pollMs: number): { next(signal?: AbortSignal): Promise<void>; close(): void } {
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path, { persistent: false }, () => wake?.());
    watcher.on("error", () => watcher?.close());
  } catch {
    watcher = undefined; // no inotify (a full watch table, a network file system): the poll alone
  }
  return {
    next(signal) {
      return new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal?.addEventListener("abort", done, { once: true });
        wake = done;
      });
    },
    close() {
      watcher?.close();
      wake?.();
    },
  };
}
