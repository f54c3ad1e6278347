/**
 * A followed file, for `--follow` (src/cli/sources/follow.ts, like `tail -F`) and for the logs
 * `agentstream serve` streams while their run goes on (src/server/catalog.ts): read from its
 * start, then whatever is appended, until the signal aborts (after which what was written so far
 * is read and the chunks end) or the caller says the writer is done (`finished`).
 *
 * A file that shrinks, or whose bytes before the read position change (truncated and written again
 * past where we were), or whose path now names another file (renamed away, rotated, replaced) is
 * noticed before the next read: the follower says so (a `restart` with an Issue) and reads the file
 * now at the path from its start, so old and new text are never joined into one misread line.
 * A replaced file is first read to its end. A path that vanishes is waited for.
 *
 * Changes are noticed through `fs.watch`, and by polling the file every `pollMs` as well: fs.watch
 * misses changes on network file systems (NFS, SMB), on some container and VM mounts (9p, WSL), and
 * fails outright when inotify watches run out; a poll costs one fstat, one stat and one small read.
 */
import { type FSWatcher, watch } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import type { Issue } from "../errors.ts";

export interface FollowOptions {
  /** Ends the follow: what the file holds by then is read, and the chunks end. */
  readonly signal: AbortSignal;
  /**
   * Asked before each read to the end of the file: true when its writer is done (a run log whose
   * summary is written), so that read is the last and the chunks end. @defaultValue never
   */
  readonly finished?: () => boolean;
  /** How often the file is checked when no change is signalled. @defaultValue 500 */
  readonly pollMs?: number;
  /** Use fs.watch beside the poll; false: the poll alone (what a file system without change events gets). @defaultValue true */
  readonly watch?: boolean;
}

/** Bytes read at a time; each chunk handed out is a copy, since the reader keeps slices of a partial line. */
const READ_BYTES = 256 * 1024;
/** How many bytes before the read position are compared to notice a file rewritten in place. */
const TAIL_BYTES = 16;

/** Said in place of a chunk when the file started again (truncated, rewritten or replaced): read on from its start. */
export interface FollowRestart {
  readonly restart: Issue;
}

export type FollowChunk = Uint8Array | FollowRestart;

/** Whether a chunk is a restart. */
export function isFollowRestart(chunk: FollowChunk): chunk is FollowRestart {
  return !(chunk instanceof Uint8Array);
}

/** What an open file is: which file (device and inode), and the bytes just before the read position. */
interface Followed {
  handle: FileHandle;
  dev: number;
  ino: number;
  position: number;
  tail: Buffer;
}

/**
 * The file's bytes from its start, then what is appended, until the signal aborts or `finished()`
 * says the writer is done; a `restart` in place of a chunk when it started again.
 * @example
 * const stop = new AbortController();
 * for await (const chunk of followFile("run.events.ndjson", { signal: stop.signal, finished: () => existsSync("run.summary.json") }))
 *   if (!isFollowRestart(chunk)) reader.feed(chunk);
 */
export async function* followFile(path: string, options: FollowOptions): AsyncGenerator<FollowChunk> {
  // A file missing at the start is an I/O error, as without --follow (a typo should not wait forever).
  let file = await openFollowed(path);
  const waker = createWaker(options.signal, options.pollMs ?? 500, options.watch ?? true);
  waker.watch(path);
  const scratch = Buffer.allocUnsafe(READ_BYTES);
  try {
    for (;;) {
      // Asked before reading: what is read after a "finished" answer is everything the writer wrote.
      const last = options.finished?.() ?? false;
      const changedWhileReading = yield* readToEnd(file, scratch);
      if (!changedWhileReading) {
        if (options.signal.aborted || last) return;
        await waker.wait();
      }
      const change = await examine(file, path);
      if (change === undefined) continue;
      if (change.kind === "replaced") {
        // Whatever was written to the old file before it was replaced is still its text.
        yield* readToEnd(file, scratch);
        await file.handle.close();
        file = change.next;
        waker.watch(path);
      } else {
        file.position = 0;
        file.tail = Buffer.alloc(0);
      }
      yield { restart: { code: change.code, severity: "warning", message: change.message, line: 0, file: path } };
    }
  } finally {
    waker.close();
    await file.handle.close();
  }
}

async function openFollowed(path: string): Promise<Followed> {
  const handle = await open(path, "r");
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new Error(`${path} is a directory`);
    return { handle, dev: stats.dev, ino: stats.ino, position: 0, tail: Buffer.alloc(0) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads what was appended, up to the end. Each read starts a few bytes before the read position and
 * checks them in the same read, so a file rewritten between two reads (or between the check before
 * reading and the read) is not joined to the old text: it returns true instead, and nothing of the
 * new content is handed out.
 */
async function* readToEnd(file: Followed, scratch: Buffer): AsyncGenerator<Uint8Array, boolean> {
  for (;;) {
    const overlap = file.tail.length;
    const { bytesRead } = await file.handle.read(scratch, 0, scratch.length, file.position - overlap);
    if (bytesRead < overlap || !scratch.subarray(0, overlap).equals(file.tail)) return true;
    if (bytesRead === overlap) return false;
    const chunk = Buffer.from(scratch.subarray(overlap, bytesRead));
    file.position += chunk.length;
    file.tail = Buffer.from(scratch.subarray(Math.max(0, bytesRead - TAIL_BYTES), bytesRead));
    yield chunk;
  }
}

type Change =
  | { readonly kind: "truncated"; readonly code: Issue["code"]; readonly message: string }
  | { readonly kind: "replaced"; readonly code: Issue["code"]; readonly message: string; readonly next: Followed };

/** How the file changed other than by growing, if it did. */
async function examine(file: Followed, path: string): Promise<Change | undefined> {
  const size = (await file.handle.stat()).size;
  if (size < file.position) {
    return {
      kind: "truncated",
      code: "file-truncated",
      message: `the file shrank from ${file.position} to ${size} bytes: read again from its start`,
    };
  }
  if (file.tail.length > 0 && !(await tailUnchanged(file))) {
    return {
      kind: "truncated",
      code: "file-truncated",
      message: `the file was written again from its start (its bytes before offset ${file.position} changed): read again from its start`,
    };
  }
  const atPath = await stat(path).catch(() => undefined);
  // Gone (renamed away, being rotated): keep reading the open file and wait for the path to come back.
  if (atPath === undefined || (atPath.dev === file.dev && atPath.ino === file.ino)) return undefined;
  const next = await openFollowed(path).catch(() => undefined);
  if (next === undefined) return undefined; // replaced again meanwhile: the next check sees it
  return {
    kind: "replaced",
    code: "file-replaced",
    message: "the path now names another file (renamed, rotated or replaced): read it from its start",
    next,
  };
}

async function tailUnchanged(file: Followed): Promise<boolean> {
  const now = Buffer.alloc(file.tail.length);
  const { bytesRead } = await file.handle.read(now, 0, now.length, file.position - file.tail.length);
  return bytesRead === now.length && now.equals(file.tail);
}

/** Wakes the reader on a change event, after `pollMs` without one, or when the signal aborts. */
function createWaker(
  signal: AbortSignal,
  pollMs: number,
  watching: boolean,
): { watch(path: string): void; wait(): Promise<void>; close(): void } {
  let watcher: FSWatcher | undefined;
  let changed = false;
  let pending: (() => void) | undefined;
  const wake = (): void => {
    changed = true;
    pending?.();
  };
  signal.addEventListener("abort", wake);
  const unwatch = (): void => {
    watcher?.close();
    watcher = undefined;
  };
  return {
    watch(path) {
      unwatch();
      if (!watching) return;
      try {
        watcher = watch(path, { persistent: false }, wake);
        watcher.on("error", unwatch); // the poll goes on
      } catch {
        // No inotify watch left, or a file system without change events: the poll alone.
      }
    },
    async wait() {
      if (!changed && !signal.aborted) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            pending = undefined;
            resolve();
          };
          const timer = setTimeout(done, pollMs);
          pending = done;
        });
      }
      changed = false;
    },
    close() {
      unwatch();
      signal.removeEventListener("abort", wake);
      pending?.();
    },
  };
}
