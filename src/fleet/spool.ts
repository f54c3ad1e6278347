/**
 * The publisher's on-disk spool: where events wait while NATS is down or slow, in order, bounded.
 *
 * A spool is a list of append-only segment files in one folder, read from the head and appended
 * at the tail. Each message is one line, `<subject> <message id> <event JSON>`, written whole with
 * one `write(2)` per batch, so a crash (ours, or a SIGKILL) leaves every file intact up to its last
 * complete line; a torn last line is skipped when the file is read again. Our own segment is named
 * `<host>.<pid>.<random>.spool`; at start a publisher adopts the segments of processes of the same
 * host that are gone (they crashed, or gave up waiting for the server) and sends them first.
 * Files are created 0600 in a 0700 folder: the events are redacted, but they are still the agent's work.
 */
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { encodeToken } from "./subjects.ts";

/** One message as spooled: where it goes, its de-duplication id, and the event's JSON text. */
export interface SpooledMessage {
  readonly subject: string;
  readonly id: string;
  readonly data: string;
}

export interface Spool {
  /** The segment this process appends to. */
  readonly file: string;
  /** Bytes in every segment not yet sent (what `maxBytes` bounds). */
  readonly bytes: number;
  /** True when nothing waits in any segment. */
  readonly empty: boolean;
  /** Messages that did not fit (the spool was at `maxBytes`): lost, and said so. */
  readonly dropped: number;
  /** Messages appended since the spool was opened. */
  readonly appended: number;
  /** Segments of other processes taken over at start. */
  readonly adopted: readonly string[];
  /** Appends in order; what does not fit is dropped and counted. Returns how many were kept. */
  append(messages: readonly SpooledMessage[]): number;
  /** Up to `max` of the oldest messages, left in place until `commit`. */
  peek(max: number): SpooledMessage[];
  /** The first `count` messages of the last `peek` not yet committed were sent: forget them (commits of one peek add up). */
  commit(count: number): void;
  /** Puts messages before everything not yet sent of this process's own segment (what was in flight at close). */
  prepend(messages: readonly SpooledMessage[]): void;
  /** Messages still waiting, counted by reading the segments (for the final report only). */
  countWaiting(): number;
  /** Closes the files; empty segments are removed, the others stay for the next publisher. */
  close(): void;
}

export interface SpoolOptions {
  readonly dir: string;
  readonly host: string;
  /** The most bytes waiting, over all segments. */
  readonly maxBytes: number;
}

interface Segment {
  path: string;
  fd: number;
  size: number;
  /** Bytes already sent (committed). */
  offset: number;
}

const READ_CHUNK = 1 << 20;

/** Segments open in this process (several publishers may share a folder): never adopted. */
const openPaths = new Set<string>();

export function openSpool(options: SpoolOptions): Spool {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const base = `${encodeToken(options.host)}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const adopted = adoptOrphans(options.dir, options.host, base);
  const segments: Segment[] = adopted.map((path) => openSegment(path));
  const own = openSegment(join(options.dir, `${base}.spool`));
  segments.push(own);
  let dropped = 0;
  let appended = 0;
  let peeked: { segment: Segment; ends: number[] } | undefined;
  const waitingBytes = (): number => segments.reduce((sum, s) => sum + (s.size - s.offset), 0);

  return {
    file: own.path,
    get bytes() {
      return waitingBytes();
    },
    get empty() {
      return waitingBytes() === 0;
    },
    get dropped() {
      return dropped;
    },
    get appended() {
      return appended;
    },
    adopted,
    append(messages) {
      let room = options.maxBytes - waitingBytes();
      const lines: string[] = [];
      for (const message of messages) {
        const line = lineOf(message);
        const size = Buffer.byteLength(line);
        if (size > room) {
          dropped++;
          continue;
        }
        room -= size;
        lines.push(line);
      }
      if (lines.length === 0) return 0;
      const bytes = Buffer.from(lines.join(""));
      writeWhole(own.fd, bytes, own.size);
      own.size += bytes.length;
      appended += lines.length;
      return lines.length;
    },
    peek(max) {
      for (;;) {
        dropFinishedHeads(segments, own);
        const head = segments[0] as Segment;
        const { messages, ends } = readMessages(head, max);
        if (messages.length === 0 && head !== own) {
          // Only a torn last line is left of a segment a crashed process wrote: nothing more will come.
          head.offset = head.size;
          continue;
        }
        peeked = { segment: head, ends };
        return messages;
      }
    },
    commit(count) {
      if (peeked === undefined || count === 0) return;
      const end = peeked.ends[count - 1];
      if (end !== undefined) peeked.segment.offset = end;
      // The rest of the peek stays, for the pump's next acknowledgements (a window of publishes in flight).
      peeked = count < peeked.ends.length ? { segment: peeked.segment, ends: peeked.ends.slice(count) } : undefined;
      if (own.offset === own.size && own.size > 0 && peeked === undefined) {
        // Everything we spooled was sent: start the file again rather than let it grow.
        ftruncateSync(own.fd, 0);
        own.size = 0;
        own.offset = 0;
      }
      dropFinishedHeads(segments, own);
    },
    prepend(messages) {
      if (messages.length === 0) return;
      // A new file renamed over the old one: a crash leaves one or the other, whole.
      const temporary = `${own.path}.tmp`;
      const out = openSync(temporary, "w", 0o600);
      const head = Buffer.from(messages.map(lineOf).join(""));
      writeWhole(out, head, 0);
      const size = head.length + copyRange(own.fd, own.offset, own.size, out, head.length);
      closeSync(out);
      renameSync(temporary, own.path);
      closeSync(own.fd);
      own.fd = openSync(own.path, "a+", 0o600);
      own.size = size;
      own.offset = 0;
      peeked = undefined;
      appended += messages.length;
    },
    countWaiting() {
      return segments.reduce((count, segment) => count + countLines(segment), 0);
    },
    close() {
      for (const segment of segments) {
        try {
          if (segment.size === segment.offset) removeFile(segment.path);
          else if (segment.offset > 0) keepUnsent(segment);
        } finally {
          closeSync(segment.fd);
          openPaths.delete(segment.path);
        }
      }
      segments.length = 0;
    },
  };
}

function lineOf(message: SpooledMessage): string {
  return `${message.subject} ${message.id} ${message.data}\n`;
}

function openSegment(path: string): Segment {
  const fd = openSync(path, "a+", 0o600);
  openPaths.add(path);
  return { path, fd, size: fstatSync(fd).size, offset: 0 };
}

/** Head segments of other processes that were sent to the end are removed; ours stays (it is the tail). */
function dropFinishedHeads(segments: Segment[], own: Segment): void {
  while (segments.length > 1 && segments[0] !== own && (segments[0] as Segment).offset >= (segments[0] as Segment).size) {
    const done = segments.shift() as Segment;
    closeSync(done.fd);
    openPaths.delete(done.path);
    removeFile(done.path);
  }
}

/** Whole lines from `segment.offset`: up to `max` messages and where each line ends. A torn last line is not a message. */
function readMessages(segment: Segment, max: number): { messages: SpooledMessage[]; ends: number[] } {
  const messages: SpooledMessage[] = [];
  const ends: number[] = [];
  let position = segment.offset;
  let rest = Buffer.alloc(0);
  while (messages.length < max && position < segment.size) {
    const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, segment.size - position));
    const read = readSync(segment.fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    const bytes = rest.length === 0 ? chunk.subarray(0, read) : Buffer.concat([rest, chunk.subarray(0, read)]);
    const start = position - rest.length;
    position += read;
    let lineStart = 0;
    for (let newline = bytes.indexOf(0x0a); newline !== -1 && messages.length < max; newline = bytes.indexOf(0x0a, lineStart)) {
      const message = parseLine(bytes.toString("utf8", lineStart, newline));
      lineStart = newline + 1;
      if (message !== undefined) messages.push(message);
      // A line that is not a message (damaged by hand) is passed over, not sent.
      if (message !== undefined) ends.push(start + lineStart);
      else if (messages.length === 0) segment.offset = start + lineStart;
    }
    if (messages.length >= max) break;
    rest = bytes.subarray(lineStart);
  }
  return { messages, ends };
}

/** Complete lines from `segment.offset` on: the messages waiting (a torn last line is none). */
function countLines(segment: Segment): number {
  const chunk = Buffer.allocUnsafe(READ_CHUNK);
  let count = 0;
  for (let position = segment.offset; position < segment.size; ) {
    const read = readSync(segment.fd, chunk, 0, Math.min(READ_CHUNK, segment.size - position), position);
    if (read === 0) break;
    for (let at = chunk.indexOf(0x0a, 0); at !== -1 && at < read; at = chunk.indexOf(0x0a, at + 1)) count++;
    position += read;
  }
  return count;
}

function parseLine(line: string): SpooledMessage | undefined {
  const first = line.indexOf(" ");
  const second = first === -1 ? -1 : line.indexOf(" ", first + 1);
  if (second === -1) return undefined;
  return { subject: line.slice(0, first), id: line.slice(first + 1, second), data: line.slice(second + 1) };
}

/** A segment sent in part: its unsent lines are all that is kept, so the next publisher does not send the rest again. */
function keepUnsent(segment: Segment): void {
  const temporary = `${segment.path}.tmp`;
  try {
    const out = openSync(temporary, "w", 0o600);
    copyRange(segment.fd, segment.offset, segment.size, out, 0);
    closeSync(out);
    renameSync(temporary, segment.path);
  } catch (error) {
    // The spool folder was removed while we ran (by hand, or a cleanup): there is nowhere to keep them.
    if (!isMissing(error)) throw error;
  }
}

/** Copies bytes `start`..`end` of `from` to `to` at `at`, a chunk at a time (a spool may be larger than memory should hold). */
function copyRange(from: number, start: number, end: number, to: number, at: number): number {
  const chunk = Buffer.allocUnsafe(READ_CHUNK);
  let copied = 0;
  while (start + copied < end) {
    const read = readSync(from, chunk, 0, Math.min(READ_CHUNK, end - start - copied), start + copied);
    if (read === 0) break;
    writeWhole(to, chunk.subarray(0, read), at + copied);
    copied += read;
  }
  return copied;
}

/** Removes a spool file; one already gone (its folder removed while we ran) is not an error. */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

function writeWhole(fd: number, bytes: Uint8Array, position: number): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, position + written);
}

/**
 * Segments left by processes of this host that no longer run, oldest first, renamed to ours
 * (a rename is atomic: when two publishers start at once, one of them gets each file).
 */
function adoptOrphans(dir: string, host: string, base: string): string[] {
  const prefix = `${encodeToken(host)}.`;
  const orphans = readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && name.endsWith(".spool") && !openPaths.has(join(dir, name)))
    .filter((name) => !isRunning(Number(name.slice(prefix.length).split(".")[0])))
    .map((name) => ({ name, mtime: mtimeOf(join(dir, name)) }))
    .sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name));
  const adopted: string[] = [];
  for (const orphan of orphans) {
    const target = join(dir, `${base}-${adopted.length}.spool`);
    try {
      renameSync(join(dir, orphan.name), target);
      adopted.push(target);
    } catch {
      // Another publisher took it first.
    }
  }
  return adopted;
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return true; // not a name we wrote: leave it alone
  if (pid === process.pid) return false; // ours, and not open (checked above): left by an earlier publisher of this process
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
