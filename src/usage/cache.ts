/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under
 * $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream). An unchanged file is not read again; a file that
 * grew (session logs are appended to) is read from where the last read stopped. A cache that cannot be read is
 * ignored; one that cannot be written is skipped.
 *
 * One binary file, so that loading it costs a read and no parsing of records: frames, each a short JSON header
 * (per file its path, size, mtime, offset, facts, scanner state, models, and where its records are), then the
 * files' records as the typed columns they are held in (types.ts `RecordColumns`): the two key columns of every
 * record, then each file's other columns as one block (`layout`).
 * Loading reads the headers and the request keys; a file's other columns are read when first used
 * (stored-columns.ts): nothing is decoded or copied per record, and a run that updates the last result from a few
 * changed files reads little more than the keys. A run that
 * read a few files appends one frame with them (a journal); the file is written whole again, compacted to one
 * frame, when the appended frames have grown it by a quarter.
 */
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { blockBytes, blockViews, type CacheFd, FrameStore, StoredColumns } from "./stored-columns.ts";
import type { FileScan, RecordColumns } from "./types.ts";

const VERSION = 5;
const MAGIC = "AGSUSAGE";
/** A frame starts with the magic, its header's length and its own length in bytes (uint32 LE). */
const PREFIX_BYTES = 16;
/** The appended frames may grow the file to this much of its first frame before it is written whole again. */
const MAX_GROWTH = 1.25;

/** A file's entry in the header: the scan without its records, and where they are in the columns. */
type StoredScan = Omit<FileScan, "records"> & {
  readonly first: number;
  readonly length: number;
  readonly models: readonly string[];
  readonly threads?: readonly (string | null)[];
};

interface Header {
  readonly version: number;
  /** Records in all, the length of every column. */
  readonly length: number;
  readonly files: StoredScan[];
  /** Paths that an earlier frame holds and that are gone. */
  readonly forget?: readonly string[];
}

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env.XDG_CACHE_HOME ?? (env.HOME === undefined ? undefined : join(env.HOME, ".cache"));
  return base === undefined ? undefined : join(base, "agentstream");
}

function cacheFile(dir: string): string {
  return join(dir, `usage-v${VERSION}.bin`);
}

/**
 * Byte offsets in a frame at `start` with a header of `headerBytes`, for files of `lengths` records: the two key
 * columns of every record first, then each file's other columns as one block (stored-columns.ts `blockBytes`:
 * one read gives a file all of them). Everything 8-aligned, the frame's end too, so the next frame is aligned.
 */
function layout(start: number, headerBytes: number, lengths: readonly number[]) {
  const keyHi = start + Math.ceil((PREFIX_BYTES + headerBytes) / 8) * 8;
  const length = lengths.reduce((sum, n) => sum + n, 0);
  const blocks = keyHi + 16 * length;
  const end = lengths.reduce((at, n) => at + blockBytes(n), blocks);
  return { keyHi, keyLo: keyHi + 8 * length, blocks, end, length };
}

/** One frame: the scans' facts in the JSON header, then their records (`layout`). */
function frameOf(scans: Iterable<FileScan>, forget: readonly string[] = []): Buffer {
  const files: StoredScan[] = [];
  const columns: RecordColumns[] = [];
  let length = 0;
  for (const { records, ...scan } of scans) {
    const { models, threads } = records;
    files.push({ ...scan, first: length, length: records.length, models, ...(threads === undefined ? {} : { threads }) });
    columns.push(records);
    length += records.length;
  }
  const header: Header = { version: VERSION, length, files, ...(forget.length === 0 ? {} : { forget }) };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const at = layout(
    0,
    json.length,
    files.map((file) => file.length),
  );
  const out = Buffer.alloc(at.end);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, MAGIC.length);
  out.writeUInt32LE(at.end, MAGIC.length + 4);
  json.copy(out, PREFIX_BYTES);
  const buffer = out.buffer as ArrayBuffer;
  const keyHi = new Float64Array(buffer, out.byteOffset + at.keyHi, length);
  const keyLo = new Float64Array(buffer, out.byteOffset + at.keyLo, length);
  let block = at.blocks;
  columns.forEach((c, k) => {
    keyHi.set(c.keyHi, files[k]?.first ?? 0);
    keyLo.set(c.keyLo, files[k]?.first ?? 0);
    const views = blockViews(buffer, out.byteOffset + block, c.length);
    views.time.set(c.time);
    views.cost.set(c.cost);
    views.tokens.set(c.tokens);
    views.model.set(c.model);
    views.flags.set(c.flags);
    block += blockBytes(c.length);
  });
  return out;
}

/** A frame of the cache file read: its files, the paths it forgets, and where the next frame starts. */
interface Frame {
  readonly files: Map<string, FileScan>;
  readonly forget: readonly string[];
  readonly end: number;
}

/** The cache as loaded: each file's last scan by path, its columns read from the file as they are used. */
export interface LoadedCache {
  readonly scans: Map<string, FileScan>;
  /** Closes the cache file: call it once every column needed has been read (a column read later throws). */
  close(): void;
}

/**
 * The cache: every frame of the file in order, a later frame's files replacing the same paths and its `forget`
 * list dropping paths. A frame cut short (a crash while appending) ends the reading: what came before stands.
 * Only the frames' headers and request keys are read here (stored-columns.ts).
 */
export function loadCache(dir: string | undefined): LoadedCache {
  const scans = new Map<string, FileScan>();
  if (dir === undefined) return { scans, close: () => {} };
  let file: CacheFd;
  try {
    file = { fd: openSync(cacheFile(dir), "r"), closed: false };
  } catch {
    // No cache yet: everything is read.
    return { scans, close: () => {} };
  }
  const close = (): void => {
    if (!file.closed) closeSync(file.fd);
    file.closed = true;
  };
  try {
    const size = fstatSync(file.fd).size;
    for (let at = 0; at < size; ) {
      const frame = readFrame(file, at, size);
      if (frame === undefined) break;
      for (const path of frame.forget) scans.delete(path);
      for (const [path, scan] of frame.files) scans.set(path, scan);
      at = frame.end;
    }
  } catch {
    // A cache from another version, or one that cannot be read: what was read stands.
  }
  return { scans, close };
}

function readFrame(file: CacheFd, start: number, size: number): Frame | undefined {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  if (start + PREFIX_BYTES > size || readSync(file.fd, prefix, 0, PREFIX_BYTES, start) !== PREFIX_BYTES) return undefined;
  if (prefix.toString("latin1", 0, MAGIC.length) !== MAGIC) return undefined;
  const headerBytes = prefix.readUInt32LE(MAGIC.length);
  if (start + PREFIX_BYTES + headerBytes > size) return undefined;
  const text = Buffer.alloc(headerBytes);
  if (readSync(file.fd, text, 0, headerBytes, start + PREFIX_BYTES) !== headerBytes) return undefined;
  const header = JSON.parse(text.toString("utf8")) as Header;
  if (header.version !== VERSION) return undefined;
  const at = layout(
    start,
    headerBytes,
    header.files.map((stored) => stored.length),
  );
  if (at.length !== header.length || at.end > size) return undefined;
  const store = new FrameStore(file, at);
  const files = new Map<string, FileScan>();
  let block = at.blocks;
  for (const stored of header.files) {
    const { path, agent, size, mtimeMs, offset, seam, badLines, facts, state, first, length } = stored;
    // A literal, not a rest and a spread: two generic copies per file, for thousands of files.
    const records = new StoredColumns(store, { first, length, block }, stored.models, stored.threads);
    files.set(path, { path, agent, size, mtimeMs, offset, seam, badLines, facts, state, records });
    block += blockBytes(length);
  }
  return { files, forget: header.forget ?? [], end: at.end };
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
    writeFileSync(temporary, frameOf(scans), { mode: 0o600 });
    renameSync(temporary, target);
    // A cache of an older layout is of no use any more.
    for (let old = 1; old < VERSION; old++) {
      rmSync(join(dir, `usage-v${old}.json`), { force: true });
      rmSync(join(dir, `usage-v${old}.bin`), { force: true });
    }
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
  // Frames start 8-aligned: the file's length is a multiple of 8 after every write.
  if (prefix.toString("latin1", 0, MAGIC.length) !== MAGIC || size % 8 !== 0 || size + frame.length > MAX_GROWTH * first) return false;
  appendFileSync(target, frame);
  return true;
}
