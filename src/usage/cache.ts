/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under $XDG_CACHE_HOME/agentstream
 * (else ~/.cache/agentstream). An unchanged file is not read again; a file that grew (session logs are appended
 * to) is read from where the last read stopped.
 *
 * A cache is a cache, never a source of truth: it is read only when it is a regular file (opened without
 * following a link, without blocking on a FIFO, checked with fstat) of at most `MAX_CACHE_BYTES`, and used only
 * when its checksum (CRC-32 over everything after the prefix) and its layout agree. Anything else (a flipped bit,
 * a cut file, a link to a device, a FIFO, a file of another layout) is said once and the cache is made again from
 * the logs; it is always written whole, to a fresh temporary file renamed over it.
 *
 * Layout: `MAGIC`, then four uint32 LE (version, header bytes, CRC-32 of the rest, total bytes); the header (JSON:
 * each file's path, size, mtime, offset, facts, scanner state, models, threads and record count), padded to 8;
 * then each file's records as one block laid out as columns.ts lays out a scan's columns (keys, time, cost,
 * tokens as Float64, model as Int32, flags as bytes), padded to 8, so a loaded file's columns are views of the
 * loaded bytes.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { olderVersion, removeStale } from "./cache-dir.ts";
import { columnBytes, columnViews, compactColumns } from "./columns.ts";
import type { FileScan, RecordColumns } from "./types.ts";

/** Changes whenever the layout does: a file of another version is made again. */
const VERSION = 9;
const MAGIC = "AGSUSAGE";
const PREFIX_BYTES = MAGIC.length + 16;
/**
 * A cache larger than this is not read (it would be some other file): 1 GB of logs make about 26 MB of cache, so
 * this is room for about 20 GB of logs.
 */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;

/** One file's entry in the header: every field of its scan but the records' columns, and how to read those back. */
type Entry = Omit<FileScan, "records"> & {
  readonly models: readonly string[];
  readonly threads?: readonly (string | null)[] | undefined;
  readonly length: number;
};

export function cacheFile(dir: string): string {
  return join(dir, `usage-v${VERSION}.bin`);
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** The cache as loaded: each file's last scan by path, and why the file there could not be used, when it could not. */
export interface LoadedCache {
  readonly scans: Map<string, FileScan>;
  /** Set when a cache file was there and was not used (damaged, not a regular file, too large): it is made again. */
  readonly damaged?: string | undefined;
}

/** The cache in `dir` (none when `dir` is undefined, or when there is no cache file yet). */
export function loadCache(dir: string | undefined): LoadedCache {
  if (dir === undefined) return { scans: new Map() };
  let fd: number;
  try {
    // No link followed (a link to /dev/zero is not a cache), no wait on a FIFO with no writer.
    fd = openSync(cacheFile(dir), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? { scans: new Map() }
      : { scans: new Map(), damaged: code === "ELOOP" ? "a symbolic link" : `cannot be read (${code})` };
  }
  try {
    const bytes = readRegularFile(fd);
    if (typeof bytes === "string") return { scans: new Map(), damaged: bytes };
    const scans = parseCache(bytes);
    return typeof scans === "string" ? { scans: new Map(), damaged: scans } : { scans };
  } catch (error) {
    return { scans: new Map(), damaged: `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  } finally {
    closeSync(fd);
  }
}

/** The whole file, or why it is not a cache to read: not a regular file, or larger than the cap. */
function readRegularFile(fd: number): Uint8Array | string {
  const stat = fstatSync(fd);
  if (!stat.isFile()) return "not a regular file";
  if (stat.size > MAX_CACHE_BYTES) return "too large";
  // 8-aligned memory, so the columns can be views of it.
  const bytes = new Uint8Array(new ArrayBuffer(align8(stat.size)), 0, stat.size);
  let at = 0;
  while (at < bytes.length) {
    const read = readSync(fd, bytes, at, bytes.length - at, at);
    if (read === 0) break;
    at += read;
  }
  return at === bytes.length ? bytes : "cut short";
}

/** Every file's scan, or why the bytes are not a cache of this layout. */
function parseCache(bytes: Uint8Array): Map<string, FileScan> | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (bytes.length < PREFIX_BYTES || Buffer.from(bytes.buffer, 0, MAGIC.length).toString("latin1") !== MAGIC) return "not a cache file";
  if (view.getUint32(MAGIC.length, true) !== VERSION) return "another version";
  const headerBytes = view.getUint32(MAGIC.length + 4, true);
  if (view.getUint32(MAGIC.length + 12, true) !== bytes.length || PREFIX_BYTES + headerBytes > bytes.length) return "cut short";
  if (crc32(bytes.subarray(PREFIX_BYTES)) !== view.getUint32(MAGIC.length + 8, true)) return "checksum mismatch";
  const entries = JSON.parse(Buffer.from(bytes.buffer, PREFIX_BYTES, headerBytes).toString("utf8")) as Entry[];
  if (!Array.isArray(entries)) return "not a cache file";
  const scans = new Map<string, FileScan>();
  let at = align8(PREFIX_BYTES + headerBytes);
  for (const entry of entries) {
    const length = entry.length;
    if (!Number.isInteger(length) || length < 0 || at + columnBytes(length) > bytes.length) return "cut short";
    const records = columnViews(bytes.buffer, at, length, [...entry.models], entry.threads === undefined ? undefined : [...entry.threads]);
    at += align8(columnBytes(length));
    const { path, agent, size, mtimeMs, offset, seam, badLines, facts, state } = entry;
    scans.set(path, { path, agent, size, mtimeMs, offset, seam, badLines, facts, state, records });
  }
  return at === bytes.length ? scans : "cut short";
}

/** The bytes of a cache holding `scans`, as chunks to write one after the other. */
function cacheChunks(scans: readonly FileScan[]): Uint8Array[] {
  const entries: Entry[] = scans.map(({ path, agent, size, mtimeMs, offset, seam, badLines, facts, state, records }) => ({
    path,
    agent,
    size,
    mtimeMs,
    offset,
    seam,
    badLines,
    facts,
    state,
    models: records.models,
    threads: records.threads,
    length: records.length,
  }));
  const header = Buffer.from(JSON.stringify(entries), "utf8");
  const head = Buffer.alloc(align8(PREFIX_BYTES + header.length));
  head.write(MAGIC, 0, "latin1");
  header.copy(head, PREFIX_BYTES);
  const chunks: Uint8Array[] = [head];
  for (const { records } of scans) {
    const block = blockOf(records);
    const padding = align8(block.length) - block.length;
    // No empty chunk: zlib's crc32 of an empty array with no memory behind it (a file with no requests) is not
    // the running value but 0, and the reader's checksum over the whole file would never match.
    if (block.length > 0) chunks.push(block);
    if (padding > 0) chunks.push(new Uint8Array(padding));
  }
  let crc = crc32(head.subarray(PREFIX_BYTES));
  let total = head.length;
  for (const chunk of chunks.slice(1)) {
    crc = crc32(chunk, crc);
    total += chunk.length;
  }
  head.writeUInt32LE(VERSION, MAGIC.length);
  head.writeUInt32LE(header.length, MAGIC.length + 4);
  head.writeUInt32LE(crc, MAGIC.length + 8);
  head.writeUInt32LE(total, MAGIC.length + 12);
  return chunks;
}

/** A file's columns as one block of bytes (columns.ts's layout): as they are held when they are so, else copied. */
function blockOf(c: RecordColumns): Uint8Array {
  const start = c.keyHi.byteOffset;
  const bytes = columnBytes(c.length);
  const laidOut = c.flags.buffer === c.keyHi.buffer && c.flags.byteOffset + c.length === start + bytes;
  if (laidOut) return new Uint8Array(c.keyHi.buffer, start, bytes);
  const copy = compactColumns(c);
  return new Uint8Array(copy.keyHi.buffer, copy.keyHi.byteOffset, bytes);
}

/**
 * Keeps the cache: written whole to a fresh temporary file (never through a link left at its name) and renamed
 * over the cache, so a crash never leaves half a cache and whatever was at the cache's name (a link, a FIFO) is
 * replaced, not written through.
 */
export function saveCache(dir: string | undefined, scans: Iterable<FileScan>): void {
  if (dir === undefined) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = cacheFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      unlinkSync(temporary);
    } catch {
      // Not there: the common case.
    }
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      for (const chunk of cacheChunks([...scans])) {
        for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
      }
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
    // Caches of an older layout, and the result cache of earlier versions, are of no use any more.
    removeStale(dir, (name) => olderVersion(name, "usage-v", VERSION) || olderVersion(name, "usage-result-v", Number.POSITIVE_INFINITY));
  } catch {
    // A read-only home: the next run reads everything again, nothing else changes.
  }
}
