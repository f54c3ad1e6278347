/**
 * Reads one session file (whole, or from where an earlier read stopped) in fixed-size chunks, so memory stays
 * flat whatever the file's size, and hands each complete line to the agent's scanner.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { agentByContent, sourceOf } from "./sources.ts";
import { readFailure } from "./read-failure.ts";
import type { LineScanner, UsageSource } from "./scanner.ts";
import type { FileScan, UsageAgent } from "./types.ts";

const CHUNK_BYTES = 1 << 20;
const MIN_CHUNK_BYTES = 4096;

/** What to read: a file, its agent when the caller knows it, and an earlier scan of it to go on from. */
export interface ScanRequest {
  readonly path: string;
  readonly agent?: UsageAgent | undefined;
  /**
   * A scan of an earlier, shorter version of the file: read on from its offset when the file was appended to
   * (the bytes before the offset are the ones it read: `FileScan.seam`), checked in the same open as the read.
   * Otherwise (the file was rewritten) it is read whole.
   */
  readonly previous?: FileScan | undefined;
}

/**
 * Scans one file; never throws. Undefined when it is not a session log (the caller counts it), or when it could not
 * be read: then `onFailure` is told why (`permission denied`), so that a file we could not read is never taken
 * for one that holds no session.
 */
export function scanFile(request: ScanRequest, onFailure?: (reason: string) => void): FileScan | undefined {
  const store = request.agent === undefined ? undefined : sourceOf(request.agent);
  if (store?.store !== undefined && store.isLog(request.path)) return scanStored(request.path, store, onFailure);
  let fd: number;
  try {
    fd = openSync(request.path, "r");
  } catch (error) {
    onFailure?.(readFailure(error));
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const agent = request.agent ?? sniffAgent(fd);
    if (agent === undefined) return undefined;
    const earlier = request.previous;
    const previous = earlier !== undefined && earlier.agent === agent && appendedTo(fd, earlier, stats.size) ? earlier : undefined;
    const base = { path: request.path, agent, size: stats.size, mtimeMs: stats.mtimeMs };
    const source = sourceOf(agent);
    if (source === undefined) return undefined;
    const document = source.scanDocument?.(request.path);
    if (document !== undefined) return { ...base, offset: stats.size, ...document };
    const scanner = source.scanner({ agent, path: request.path, previous });
    const offset = readLines(fd, previous?.offset ?? 0, stats.size, scanner);
    return { ...base, offset, seam: seamAt(fd, offset), ...scanner.result() };
  } catch (error) {
    onFailure?.(readFailure(error));
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * One session of a store (`<database>#<session id>`): its lines, as the store gives them, through the source's
 * scanner. Read whole every time its store changed (a database is rewritten in place, never only appended to).
 */
function scanStored(ref: string, source: UsageSource, onFailure?: (reason: string) => void): FileScan | undefined {
  const store = source.store;
  if (store === undefined) return undefined;
  // Taken before the read: a store written during it has a newer stamp by the next run, which reads it again.
  const stamp = store.stamp(ref);
  const read = store.read(ref);
  if ("failed" in read) {
    onFailure?.(read.failed);
    return undefined;
  }
  const scanner = source.scanner({ agent: source.agent, path: ref });
  let size = 0;
  for (const line of read.lines) {
    const bytes = Buffer.from(line, "utf8");
    size += bytes.length + 1;
    scanner.line(bytes, 0, bytes.length);
  }
  return { path: ref, agent: source.agent, size: stamp?.size ?? 0, mtimeMs: stamp?.mtimeMs ?? 0, offset: size, ...scanner.result() };
}

/** A file that could not be read, and why (`permission denied`). */
export interface ScanFailure {
  readonly failed: string;
}

/** One file's scan, or why it could not be read; undefined when it is not a session log. */
export function scanOrFailure(request: ScanRequest): FileScan | ScanFailure | undefined {
  let failed: string | undefined;
  const scan = scanFile(request, (reason) => {
    failed = reason;
  });
  return scan ?? (failed === undefined ? undefined : { failed });
}

/** How many bytes before a scan's offset its `seam` hashes. */
const SEAM_BYTES = 64;

/** The hash of the bytes before `offset` (FNV-1a, 32 bits): what `appendedTo` checks is still there. */
function seamAt(fd: number, offset: number): number {
  const bytes = Buffer.alloc(Math.min(SEAM_BYTES, offset));
  const read = readSync(fd, bytes, 0, bytes.length, offset - bytes.length);
  let hash = 0x811c9dc5;
  for (let i = 0; i < read; i++) hash = Math.imul(hash ^ (bytes[i] ?? 0), 0x01000193);
  return hash >>> 0;
}

/**
 * Whether the file open as `fd`, now `size` bytes, was appended to since `previous`: the bytes before where the
 * last read stopped are the ones it read. Otherwise (the file was rewritten, or the scan has no seam) it is read whole.
 */
function appendedTo(fd: number, previous: FileScan, size: number): boolean {
  return previous.seam !== undefined && previous.offset <= size && seamAt(fd, previous.offset) === previous.seam;
}

/**
 * Feeds every line from `offset` on; returns the offset after the last line that ended with LF. The buffer is no
 * larger than what is left to read (an appended file's tail is a few hundred bytes), and LF is searched for only
 * in the bytes read: `Buffer.indexOf` would otherwise search the rest of the buffer too.
 */
function readLines(fd: number, offset: number, size: number, scanner: LineScanner): number {
  let chunk = Buffer.allocUnsafe(Math.max(MIN_CHUNK_BYTES, Math.min(CHUNK_BYTES, size - offset + 1)));
  let position = offset;
  let consumed = offset;
  let kept = 0;
  for (;;) {
    if (kept === chunk.length) {
      // One line longer than the buffer: grow it (only that line is held).
      const grown = Buffer.allocUnsafe(chunk.length * 2);
      chunk.copy(grown, 0, 0, kept);
      chunk = grown;
    }
    const read = readSync(fd, chunk, kept, chunk.length - kept, position);
    if (read === 0) break;
    position += read;
    const end = kept + read;
    const filled = chunk.subarray(0, end);
    let from = 0;
    for (let lf = filled.indexOf(0x0a, kept); lf !== -1; lf = filled.indexOf(0x0a, from)) {
      const to = lf > from && chunk[lf - 1] === 0x0d ? lf - 1 : lf;
      if (to > from) scanner.line(chunk, from, to);
      from = lf + 1;
    }
    consumed += from;
    kept = end - from;
    if (from > 0) chunk.copy(chunk, 0, from, end);
  }
  // A last line without its LF is read now but not counted as consumed: if it was cut mid-write, the next read
  // sees it whole (every scanner keys its records, so reading a line twice counts it once).
  if (kept > 0) scanner.line(chunk, 0, chunk[kept - 1] === 0x0d ? kept - 1 : kept);
  return consumed;
}

/** The agent of a file named on the command line: from its first line. */
function sniffAgent(fd: number): UsageAgent | undefined {
  const head = Buffer.alloc(64 * 1024);
  const read = readSync(fd, head, 0, head.length, 0);
  return agentByContent(head.toString("utf8", 0, read));
}
