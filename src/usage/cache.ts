/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under
 * $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream). An unchanged file is not read again; a file that
 * grew (session logs are appended to) is read from where the last read stopped. A cache that cannot be read is
 * ignored; one that cannot be written is skipped.
 *
 * One binary file, so that loading it costs a read and no parsing of records: frames, each a short JSON header
 * (per file its path, size, mtime, offset, facts, scanner state, models, and where its records are) and the
 * files' records as the typed columns they are held in (types.ts `RecordColumns`), one column after the other.
 * Loaded, each file's columns are views of that one buffer: nothing is decoded or copied per record. A run that
 * read a few files appends one frame with them (a journal); the file is written whole again, compacted to one
 * frame, when the appended frames have grown it by a quarter.
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { type FileScan, type RecordColumns, TOKEN_FIELDS } from "./types.ts";

const VERSION = 4;
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
 * Byte offsets of a frame's columns, for a frame at `start` with a header of `headerBytes` and `length` records:
 * the Float64 columns first, 8-aligned; the frame's end padded to 8 so that the next frame is aligned too.
 */
function layout(start: number, headerBytes: number, length: number) {
  const body = start + Math.ceil((PREFIX_BYTES + headerBytes) / 8) * 8;
  const f64 = 8 * length;
  const at = { keyHi: body, keyLo: body + f64, time: body + 2 * f64, cost: body + 3 * f64, tokens: body + 4 * f64 };
  const model = at.tokens + TOKEN_FIELDS * f64;
  const flags = model + 4 * length;
  return { ...at, model, flags, end: Math.ceil((flags + length) / 8) * 8 };
}

/** One frame: the scans' facts in the JSON header, their records column after column. */
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
  const at = layout(0, json.length, length);
  const out = Buffer.alloc(at.end);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, MAGIC.length);
  out.writeUInt32LE(at.end, MAGIC.length + 4);
  json.copy(out, PREFIX_BYTES);
  const buffer = out.buffer as ArrayBuffer;
  const f64 = (from: number, n: number) => new Float64Array(buffer, out.byteOffset + from, n);
  const all = {
    keyHi: f64(at.keyHi, length),
    keyLo: f64(at.keyLo, length),
    time: f64(at.time, length),
    cost: f64(at.cost, length),
    tokens: f64(at.tokens, length * TOKEN_FIELDS),
    model: new Int32Array(buffer, out.byteOffset + at.model, length),
    flags: new Uint8Array(buffer, out.byteOffset + at.flags, length),
  };
  columns.forEach((c, k) => {
    const first = files[k]?.first ?? 0;
    all.keyHi.set(c.keyHi, first);
    all.keyLo.set(c.keyLo, first);
    all.time.set(c.time, first);
    all.cost.set(c.cost, first);
    all.tokens.set(c.tokens, first * TOKEN_FIELDS);
    all.model.set(c.model, first);
    all.flags.set(c.flags, first);
  });
  return out;
}

/** A frame of the cache file read: its files, the paths it forgets, and where the next frame starts. */
interface Frame {
  readonly files: Map<string, FileScan>;
  readonly forget: readonly string[];
  readonly end: number;
}

/**
 * The cache: every frame of the file in order, a later frame's files replacing the same paths and its `forget`
 * list dropping paths. A frame cut short (a crash while appending) ends the reading: what came before stands.
 */
export function loadCache(dir: string | undefined): Map<string, FileScan> {
  const out = new Map<string, FileScan>();
  if (dir === undefined) return out;
  try {
    let bytes: Uint8Array = readFileSync(cacheFile(dir));
    // Typed views need the buffer's offset aligned to 8: a small file read into Node's pool may not be.
    if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
    for (let at = 0; at < bytes.byteLength; ) {
      const frame = readFrame(bytes, at);
      if (frame === undefined) break;
      for (const path of frame.forget) out.delete(path);
      for (const [path, scan] of frame.files) out.set(path, scan);
      at = frame.end;
    }
  } catch {
    // No cache yet, or one from another version: everything is read.
  }
  return out;
}

function readFrame(bytes: Uint8Array, start: number): Frame | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (start + PREFIX_BYTES > bytes.byteLength || text.toString("latin1", start, start + MAGIC.length) !== MAGIC) return undefined;
  const headerBytes = text.readUInt32LE(start + MAGIC.length);
  if (start + PREFIX_BYTES + headerBytes > bytes.byteLength) return undefined;
  const header = JSON.parse(text.toString("utf8", start + PREFIX_BYTES, start + PREFIX_BYTES + headerBytes)) as Header;
  const at = layout(start, headerBytes, header.length);
  if (header.version !== VERSION || at.end > bytes.byteLength) return undefined;
  const { buffer, byteOffset } = bytes;
  const f64 = (from: number, count: number) => new Float64Array(buffer, byteOffset + from, count);
  const all: FrameColumns = {
    keyHi: f64(at.keyHi, header.length),
    keyLo: f64(at.keyLo, header.length),
    time: f64(at.time, header.length),
    cost: f64(at.cost, header.length),
    tokens: f64(at.tokens, header.length * TOKEN_FIELDS),
    model: new Int32Array(buffer, byteOffset + at.model, header.length),
    flags: new Uint8Array(buffer, byteOffset + at.flags, header.length),
  };
  const files = new Map<string, FileScan>();
  for (const { first, length, models, threads, ...scan } of header.files) {
    files.set(scan.path, { ...scan, records: new StoredColumns(all, first, length, models, threads) });
  }
  return { files, forget: header.forget ?? [], end: at.end };
}

/** A frame's columns, every file's records one after the other. */
type FrameColumns = Pick<RecordColumns, "keyHi" | "keyLo" | "time" | "cost" | "tokens" | "model" | "flags">;

/**
 * One file's columns in a loaded frame: views of the frame's columns, each made when first read (a run that
 * merges only the files a change reaches reads most files' keys and nothing else).
 */
class StoredColumns implements RecordColumns {
  readonly length: number;
  readonly models: readonly string[];
  readonly threads?: readonly (string | null)[];
  private readonly all: FrameColumns;
  private readonly first: number;
  private readonly views: { -readonly [K in keyof FrameColumns]?: FrameColumns[K] } = {};

  constructor(
    all: FrameColumns,
    first: number,
    length: number,
    models: readonly string[],
    threads: readonly (string | null)[] | undefined,
  ) {
    this.all = all;
    this.first = first;
    this.length = length;
    this.models = models;
    if (threads !== undefined) this.threads = threads;
  }

  get keyHi(): Float64Array {
    this.views.keyHi ??= this.all.keyHi.subarray(this.first, this.first + this.length);
    return this.views.keyHi;
  }
  get keyLo(): Float64Array {
    this.views.keyLo ??= this.all.keyLo.subarray(this.first, this.first + this.length);
    return this.views.keyLo;
  }
  get time(): Float64Array {
    this.views.time ??= this.all.time.subarray(this.first, this.first + this.length);
    return this.views.time;
  }
  get cost(): Float64Array {
    this.views.cost ??= this.all.cost.subarray(this.first, this.first + this.length);
    return this.views.cost;
  }
  get tokens(): Float64Array {
    this.views.tokens ??= this.all.tokens.subarray(this.first * TOKEN_FIELDS, (this.first + this.length) * TOKEN_FIELDS);
    return this.views.tokens;
  }
  get model(): Int32Array {
    this.views.model ??= this.all.model.subarray(this.first, this.first + this.length);
    return this.views.model;
  }
  get flags(): Uint8Array {
    this.views.flags ??= this.all.flags.subarray(this.first, this.first + this.length);
    return this.views.flags;
  }
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
    for (let old = 1; old < VERSION; old++) rmSync(join(dir, `usage-v${old}.json`), { force: true });
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
