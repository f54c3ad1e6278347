/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under
 * $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream). An unchanged file is not read again; a file that
 * grew (session logs are appended to) is read from where the last read stopped. A cache that cannot be read is
 * ignored; one that cannot be written is skipped.
 *
 * One binary file, so that loading it costs what a run uses: frames, each a short JSON header (counts and
 * lengths), then the files' table (`layout`): the numbers every run needs for every file (size and mtime, to
 * match the files found; where its records are) as typed columns, the paths as one UTF-8 string with each
 * path's length in UTF-16 code units (decoded once and sliced: no separator, a path may hold any character),
 * and each file's other fields (agent, offset, seam, bad lines, facts, scanner state, models, threads) as a JSON
 * text of its own, parsed when first used (stored-scan.ts: a run after a few files changed uses them for those
 * files only). Then a filter of the frame's request keys (key-filter.ts: whether a key may be in the frame,
 * so a run can tell that the requests a file gained are in no other file without reading any key), then the
 * files' records as the typed columns they are held in (types.ts `RecordColumns`): the two key columns of
 * every record, then each file's other columns as one block.
 * Loading reads the headers, the tables and the paths; a file's entry, keys and other columns, and the pages of
 * a filter, are read when first used (stored-columns.ts, key-filter.ts): nothing is decoded or copied per record,
 * and a run after a few files grew reads little more than the table. A run that read a few files appends one
 * frame with them (a journal); the file is written whole again, compacted to one frame, when the appended
 * frames have grown it by a quarter (an entry never parsed is copied as it was stored).
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { olderVersion, removeStale } from "./cache-dir.ts";
import { blockBytes, blockViews, type CacheFd, FrameStore, readBytes, StoredRegion } from "./stored-columns.ts";
import { writeChunks } from "./packed.ts";
import { KeyFilter, StoredKeyFilter } from "./key-filter.ts";
import { CachedScan, entryText } from "./stored-scan.ts";
import { type FileScan, type RecordColumns, TOKEN_FIELDS } from "./types.ts";

const VERSION = 8;
const MAGIC = "AGSUSAGE";
/** A frame starts with the magic, its header's length and its own length in bytes (uint32 LE). */
const PREFIX_BYTES = 16;
/** The appended frames may grow the file to this much of its first frame before it is written whole again. */
const MAX_GROWTH = 1.25;

/** A frame's JSON header: what it takes to find the frame's parts (`layout`). */
interface Header {
  readonly version: number;
  /** Files in the frame. */
  readonly files: number;
  /** Records in all, the length of every key column. */
  readonly length: number;
  /** Bytes of the paths (UTF-8, one after the other) and of the entries (stored-scan.ts). */
  readonly pathBytes: number;
  readonly entryBytes: number;
  /** Bits of the filter of the frame's request keys (key-filter.ts). */
  readonly filterBits: number;
  /** Paths that an earlier frame holds and that are gone. */
  readonly forget?: readonly string[];
}

function cacheFile(dir: string): string {
  return join(dir, `usage-v${VERSION}.bin`);
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/**
 * Byte offsets in a frame at `start` with a header of `headerBytes`: the files' table (a column per number:
 * size and mtime as Float64, first record, record count, path length in UTF-16 code units and end of entry as
 * Int32), the paths, the entries, the two key columns of every record, then each file's other columns as one
 * block (stored-columns.ts `blockBytes`: one read gives a file all of them), from `blocks` to the frame's end.
 * The table, the keys and the blocks start 8-aligned, and so does the frame's end: the next frame is aligned.
 */
function layout(start: number, headerBytes: number, header: Header) {
  const table = start + align8(PREFIX_BYTES + headerBytes);
  const n = header.files;
  const size = table;
  const mtimeMs = size + 8 * n;
  const first = mtimeMs + 8 * n;
  const length = first + 4 * n;
  const pathLength = length + 4 * n;
  const entryEnd = pathLength + 4 * n;
  const paths = entryEnd + 4 * n;
  const entries = paths + header.pathBytes;
  const filter = align8(entries + header.entryBytes);
  const keyHi = align8(filter + header.filterBits / 8);
  const keyLo = keyHi + 8 * header.length;
  const blocks = keyLo + 8 * header.length;
  return { table, size, mtimeMs, first, length, pathLength, entryEnd, paths, entries, filter, keyHi, keyLo, blocks };
}

type Layout = ReturnType<typeof layout>;

/**
 * One frame: the header, the files' table, paths, entries and key filter in one buffer, then the files' records as
 * the chunks they are held in (`recordChunks`), to be written one after the other (`layout`).
 */
function frameOf(scans: Iterable<FileScan>, forget: readonly string[] = []): Uint8Array[] {
  const files = [...scans];
  const entries = files.map(entryText);
  const entryBytes = entries.map((entry) => (typeof entry === "string" ? Buffer.byteLength(entry) : entry.length));
  // One string and one encoding for every path, not one per path.
  const paths = files.map((file) => file.path).join("");
  const length = files.reduce((sum, file) => sum + file.records.length, 0);
  const header: Header = {
    version: VERSION,
    files: files.length,
    length,
    pathBytes: Buffer.byteLength(paths),
    entryBytes: entryBytes.reduce((sum, n) => sum + n, 0),
    filterBits: KeyFilter.bitsFor(length),
    ...(forget.length === 0 ? {} : { forget }),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const at = layout(0, json.length, header);
  const end = files.reduce((block, file) => block + blockBytes(file.records.length), at.blocks);
  const head = Buffer.alloc(at.keyHi);
  head.write(MAGIC, 0, "latin1");
  head.writeUInt32LE(json.length, MAGIC.length);
  head.writeUInt32LE(end, MAGIC.length + 4);
  json.copy(head, PREFIX_BYTES);
  writeTable(head, at, files, entryBytes);
  head.write(paths, at.paths, "utf8");
  let entryAt = at.entries;
  entries.forEach((entry, k) => {
    if (typeof entry === "string") head.write(entry, entryAt, "utf8");
    else head.set(entry, entryAt);
    entryAt += entryBytes[k] ?? 0;
  });
  writeFilter(head, at, header, files);
  return [head, ...recordChunks(files)];
}

const bytesOf = (column: Float64Array | Int32Array | Uint8Array): Uint8Array =>
  new Uint8Array(column.buffer, column.byteOffset, column.byteLength);

/** Whether the columns other than the keys are one run of memory laid out as a block is (`blockViews`). */
function laidOutAsBlock(c: RecordColumns): boolean {
  const at = c.time.byteOffset;
  const f64 = 8 * c.length;
  const sameMemory = [c.cost, c.tokens, c.model, c.flags].every((column) => column.buffer === c.time.buffer);
  return (
    sameMemory &&
    c.cost.byteOffset === at + f64 &&
    c.tokens.byteOffset === at + 2 * f64 &&
    c.model.byteOffset === at + (2 + TOKEN_FIELDS) * f64 &&
    c.flags.byteOffset === c.model.byteOffset + 4 * c.length
  );
}

/**
 * Every file's keys (the frame's two key columns, file after file), then each file's other columns as its block:
 * the columns as they are held (a scan's columns are laid out as a block is, after its keys: columns.ts), copied
 * into a block of their own only when they are not.
 */
function recordChunks(files: readonly FileScan[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (const { records } of files) chunks.push(bytesOf(records.keyHi.subarray(0, records.length)));
  for (const { records } of files) chunks.push(bytesOf(records.keyLo.subarray(0, records.length)));
  for (const { records: c } of files) {
    const bytes = blockBytes(c.length);
    if (laidOutAsBlock(c)) {
      const start = c.time.byteOffset;
      const end = c.flags.byteOffset + c.length;
      chunks.push(new Uint8Array(c.time.buffer, start, end - start), new Uint8Array(bytes - (end - start)));
      continue;
    }
    const block = new ArrayBuffer(bytes);
    const out = blockViews(block, 0, c.length);
    out.time.set(c.time.subarray(0, c.length));
    out.cost.set(c.cost.subarray(0, c.length));
    out.tokens.set(c.tokens.subarray(0, c.length * TOKEN_FIELDS));
    out.model.set(c.model.subarray(0, c.length));
    out.flags.set(c.flags.subarray(0, c.length));
    chunks.push(new Uint8Array(block));
  }
  return chunks;
}

/** The filter of every key of the frame (key-filter.ts), in its place. */
function writeFilter(out: Buffer, at: Layout, header: Header, files: readonly FileScan[]): void {
  const filter = new KeyFilter(header.length, new Uint32Array(out.buffer, out.byteOffset + at.filter, header.filterBits / 32));
  for (const { records } of files) filter.addAll(records.keyHi, records.keyLo, records.length);
}

/** The files' table: a column per number (`layout`). */
function writeTable(out: Buffer, at: Layout, files: readonly FileScan[], entryBytes: readonly number[]): void {
  const buffer = out.buffer as ArrayBuffer;
  const n = files.length;
  const size = new Float64Array(buffer, out.byteOffset + at.size, n);
  const mtimeMs = new Float64Array(buffer, out.byteOffset + at.mtimeMs, n);
  const first = new Int32Array(buffer, out.byteOffset + at.first, n);
  const length = new Int32Array(buffer, out.byteOffset + at.length, n);
  const pathLength = new Int32Array(buffer, out.byteOffset + at.pathLength, n);
  const entryEnd = new Int32Array(buffer, out.byteOffset + at.entryEnd, n);
  let record = 0;
  let entry = 0;
  files.forEach((file, k) => {
    size[k] = file.size;
    mtimeMs[k] = file.mtimeMs;
    first[k] = record;
    length[k] = file.records.length;
    pathLength[k] = file.path.length;
    entry += entryBytes[k] ?? 0;
    entryEnd[k] = entry;
    record += file.records.length;
  });
}

/** A frame of the cache file read: its files, the filter of their keys, the paths it forgets, and where the next frame starts. */
interface Frame {
  readonly files: readonly CachedScan[];
  readonly filter: StoredKeyFilter;
  readonly forget: readonly string[];
  readonly end: number;
}

/** The cache as loaded: each file's last scan by path, its columns read from the file as they are used. */
export interface LoadedCache {
  readonly scans: Map<string, FileScan>;
  /**
   * False when no file of the cache holds the request key; true when one may (key-filter.ts: a few keys in a
   * thousand that none holds answer true too), and when there is no cache.
   */
  mayHold(hi: number, lo: number): boolean;
  /**
   * Closes the cache file: call it once every column and entry needed has been read (a scan's fields, and its
   * columns, read later throw).
   */
  close(): void;
}

/**
 * The cache: every frame of the file in order, a later frame's files replacing the same paths and its `forget`
 * list dropping paths. A frame cut short (a crash while appending) ends the reading: what came before stands.
 * Only the frames' headers, tables and paths are read here (stored-columns.ts, stored-scan.ts, key-filter.ts).
 */
export function loadCache(dir: string | undefined): LoadedCache {
  const scans = new Map<string, FileScan>();
  const none = { scans, mayHold: () => true, close: () => {} };
  if (dir === undefined) return none;
  let file: CacheFd;
  try {
    file = { fd: openSync(cacheFile(dir), "r"), closed: false };
  } catch {
    // No cache yet: everything is read.
    return none;
  }
  const close = (): void => {
    if (!file.closed) closeSync(file.fd);
    file.closed = true;
  };
  const filters: StoredKeyFilter[] = [];
  try {
    const size = fstatSync(file.fd).size;
    for (let at = 0; at < size; ) {
      const frame = readFrame(file, at, size);
      if (frame === undefined) break;
      for (const path of frame.forget) scans.delete(path);
      for (const scan of frame.files) scans.set(scan.path, scan);
      filters.push(frame.filter);
      at = frame.end;
    }
  } catch {
    // A cache that cannot be read: what was read stands.
  }
  // A frame's filter holds the keys of every file it has, those a later frame replaced too (a false "may").
  const mayHold = (hi: number, lo: number): boolean => {
    for (const filter of filters) if (filter.mayHold(hi, lo)) return true;
    return false;
  };
  return { scans, mayHold, close };
}

/**
 * The frame at `start`: its header read, then its table and paths in one read; its entries and key filter are
 * read as they are used.
 */
function readFrame(file: CacheFd, start: number, size: number): Frame | undefined {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  if (start + PREFIX_BYTES > size || readSync(file.fd, prefix, 0, PREFIX_BYTES, start) !== PREFIX_BYTES) return undefined;
  if (prefix.toString("latin1", 0, MAGIC.length) !== MAGIC) return undefined;
  const headerBytes = prefix.readUInt32LE(MAGIC.length);
  const end = start + prefix.readUInt32LE(MAGIC.length + 4);
  if (end > size || start + PREFIX_BYTES + headerBytes > end) return undefined;
  const text = Buffer.alloc(headerBytes);
  if (readSync(file.fd, text, 0, headerBytes, start + PREFIX_BYTES) !== headerBytes) return undefined;
  // A frame of another version (an older cache renamed, a newer one) is not read.
  const header = JSON.parse(text.toString("utf8")) as Header;
  if (header.version !== VERSION) return undefined;
  const at = layout(start, headerBytes, header);
  if (at.blocks > end) return undefined;
  if (!Number.isInteger(Math.log2(header.filterBits)) || header.filterBits < 32) return undefined;
  const table = readBytes(file, at.table, at.entries);
  const files = scansOf(file, header, at, end, table);
  // Read whole past 1/32 of it by pieces (of 64 bytes: thousands of reads cost more than one of the megabytes).
  const filter = new StoredKeyFilter(header.filterBits, new StoredRegion(file, at.filter, at.filter + header.filterBits / 8, 1 / 32));
  return files === undefined ? undefined : { files, filter, forget: header.forget ?? [], end };
}

/**
 * The frame's scans, from its table (`bytes`: the frame from `at.table` to its entries); undefined when the table
 * does not add up (the records, the blocks' end, the paths' and entries' lengths): a frame not written whole.
 */
function scansOf(file: CacheFd, header: Header, at: Layout, end: number, bytes: ArrayBuffer): CachedScan[] | undefined {
  const n = header.files;
  const column = <T>(View: new (b: ArrayBuffer, offset: number, length: number) => T, offset: number, length = n): T =>
    new View(bytes, offset - at.table, length);
  const size = column(Float64Array, at.size);
  const mtimeMs = column(Float64Array, at.mtimeMs);
  const first = column(Int32Array, at.first);
  const length = column(Int32Array, at.length);
  const pathLength = column(Int32Array, at.pathLength);
  const entries = { region: new StoredRegion(file, at.entries, at.entries + header.entryBytes), ends: column(Int32Array, at.entryEnd) };
  // Decoded once, then sliced: a path is never searched for a separator (any character may be in one).
  const paths = Buffer.from(bytes, at.paths - at.table, header.pathBytes).toString("utf8");
  const store = new FrameStore(file, { keyHi: at.keyHi, keyLo: at.keyLo, blocks: at.blocks, end, length: header.length });
  const scans: CachedScan[] = new Array(n);
  let record = 0;
  let block = at.blocks;
  let char = 0;
  let entryEnd = 0;
  for (let k = 0; k < n; k++) {
    const records = length[k] ?? 0;
    const pathEnd = char + (pathLength[k] ?? 0);
    if (first[k] !== record || (entries.ends[k] ?? -1) < entryEnd) return undefined;
    const place = { first: record, length: records, block };
    scans[k] = new CachedScan(paths.slice(char, pathEnd), size[k] ?? 0, mtimeMs[k] ?? 0, store, entries, k, place);
    record += records;
    block += blockBytes(records);
    char = pathEnd;
    entryEnd = entries.ends[k] ?? 0;
  }
  const whole = record === header.length && block === end && char === paths.length && entryEnd === header.entryBytes;
  return whole ? scans : undefined;
}

/** What changed since the cache was loaded: files read again, and paths to forget. */
export interface CacheChanges {
  readonly changed: readonly FileScan[];
  readonly forgotten: readonly string[];
}

/**
 * Keeps the cache. When only a few files changed, their scans are appended to the file as a frame of their own
 * (what an appended run writes is what it read, not the whole cache); once the appended frames are a quarter of
 * the file, or when `changes` is not given, the whole cache is written again in one frame, atomically (a
 * temporary file renamed over it: a crash never leaves half a cache).
 */
export function saveCache(dir: string | undefined, scans: Iterable<FileScan>, changes?: CacheChanges): void {
  if (dir === undefined) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = cacheFile(dir);
    if (changes !== undefined && appendFrame(target, changes)) return;
    const temporary = `${target}.${process.pid}.tmp`;
    writeChunks(temporary, "w", frameOf(scans));
    renameSync(temporary, target);
    // A cache of an older layout is of no use any more.
    removeStale(dir, (name) => olderVersion(name, "usage-v", VERSION));
  } catch {
    // A read-only home: the next run reads everything again, nothing else changes.
  }
}

/** Appends the changes as a frame; false when the file should be written whole instead. */
function appendFrame(target: string, changes: CacheChanges): boolean {
  let size: number;
  let first: number;
  const prefix = Buffer.alloc(PREFIX_BYTES);
  try {
    size = statSync(target).size;
    const fd = openSync(target, "r");
    try {
      if (readSync(fd, prefix, 0, PREFIX_BYTES, 0) !== PREFIX_BYTES) return false;
    } finally {
      closeSync(fd);
    }
    first = prefix.readUInt32LE(MAGIC.length + 4);
  } catch {
    return false;
  }
  const frame = frameOf(changes.changed, changes.forgotten);
  const length = frame.reduce((sum, chunk) => sum + chunk.length, 0);
  // Frames start 8-aligned: the file's length is a multiple of 8 after every write.
  if (prefix.toString("latin1", 0, MAGIC.length) !== MAGIC || size % 8 !== 0 || size + length > MAX_GROWTH * first) return false;
  writeChunks(target, "a", frame);
  return true;
}
