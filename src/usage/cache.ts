/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under
 * $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream). An unchanged file is not read again; a file that
 * grew (session logs are appended to) is read from where the last read stopped. A cache that cannot be read is
 * ignored; one that cannot be written is skipped.
 *
 * One binary file, so that loading it costs a read and no parsing of records: a short JSON header (per file its
 * path, size, mtime, offset, facts, scanner state, models, and where its records are), then every file's records
 * as the typed columns they are held in (types.ts `RecordColumns`), one column after the other. Loaded, each
 * file's columns are views of that one buffer: nothing is decoded or copied per record.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FileScan, type RecordColumns, TOKEN_FIELDS } from "./types.ts";

const VERSION = 4;
const MAGIC = "AGSUSAGE";
/** Magic, then the header's length in bytes. */
const PREFIX_BYTES = 12;

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
}

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env.XDG_CACHE_HOME ?? (env.HOME === undefined ? undefined : join(env.HOME, ".cache"));
  return base === undefined ? undefined : join(base, "agentstream");
}

export function cacheFile(dir: string): string {
  return join(dir, `usage-v${VERSION}.bin`);
}

/** Byte offsets of the columns after a header of `headerBytes`, for `length` records (Float64 first: aligned). */
function layout(headerBytes: number, length: number) {
  const body = Math.ceil((PREFIX_BYTES + headerBytes) / 8) * 8;
  const f64 = 8 * length;
  const at = { keyHi: body, keyLo: body + f64, time: body + 2 * f64, cost: body + 3 * f64, tokens: body + 4 * f64 };
  const model = at.tokens + TOKEN_FIELDS * f64;
  const flags = model + 4 * length;
  return { ...at, model, flags, end: flags + length };
}

export function loadCache(dir: string | undefined): Map<string, FileScan> {
  const out = new Map<string, FileScan>();
  if (dir === undefined) return out;
  try {
    let bytes: Uint8Array = readFileSync(cacheFile(dir));
    // Typed views need the buffer's offset aligned to 8: a small file read into Node's pool may not be.
    if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (text.toString("latin1", 0, MAGIC.length) !== MAGIC) return out;
    const headerBytes = text.readUInt32LE(MAGIC.length);
    const header = JSON.parse(text.toString("utf8", PREFIX_BYTES, PREFIX_BYTES + headerBytes)) as Header;
    const at = layout(headerBytes, header.length);
    if (header.version !== VERSION || at.end > bytes.byteLength) return out;
    const { buffer, byteOffset } = bytes;
    const f64 = (from: number, count: number) => new Float64Array(buffer, byteOffset + from, count);
    const all = {
      keyHi: f64(at.keyHi, header.length),
      keyLo: f64(at.keyLo, header.length),
      time: f64(at.time, header.length),
      cost: f64(at.cost, header.length),
      tokens: f64(at.tokens, header.length * TOKEN_FIELDS),
      model: new Int32Array(buffer, byteOffset + at.model, header.length),
      flags: new Uint8Array(buffer, byteOffset + at.flags, header.length),
    };
    for (const { first, length, models, threads, ...scan } of header.files) {
      const end = first + length;
      const records: RecordColumns = {
        length,
        keyHi: all.keyHi.subarray(first, end),
        keyLo: all.keyLo.subarray(first, end),
        time: all.time.subarray(first, end),
        cost: all.cost.subarray(first, end),
        tokens: all.tokens.subarray(first * TOKEN_FIELDS, end * TOKEN_FIELDS),
        model: all.model.subarray(first, end),
        models,
        flags: all.flags.subarray(first, end),
        ...(threads === undefined ? {} : { threads }),
      };
      out.set(scan.path, { ...scan, records });
    }
  } catch {
    // No cache yet, or one from another version: everything is read.
  }
  return out;
}

/** Writes the cache atomically (a temporary file renamed over it): a crash never leaves half a cache. */
export function saveCache(dir: string | undefined, scans: Iterable<FileScan>): void {
  if (dir === undefined) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const files: StoredScan[] = [];
    const columns: RecordColumns[] = [];
    let length = 0;
    for (const { records, ...scan } of scans) {
      const { models, threads } = records;
      files.push({ ...scan, first: length, length: records.length, models, ...(threads === undefined ? {} : { threads }) });
      columns.push(records);
      length += records.length;
    }
    const header = Buffer.from(JSON.stringify({ version: VERSION, length, files } satisfies Header), "utf8");
    const at = layout(header.length, length);
    const out = Buffer.alloc(at.end);
    out.write(MAGIC, 0, "latin1");
    out.writeUInt32LE(header.length, MAGIC.length);
    header.copy(out, PREFIX_BYTES);
    const view = <T extends Float64Array | Int32Array | Uint8Array>(make: new (b: ArrayBuffer, o: number, n: number) => T, from: number, n: number) =>
      new make(out.buffer as ArrayBuffer, out.byteOffset + from, n);
    const all = {
      keyHi: view(Float64Array, at.keyHi, length),
      keyLo: view(Float64Array, at.keyLo, length),
      time: view(Float64Array, at.time, length),
      cost: view(Float64Array, at.cost, length),
      tokens: view(Float64Array, at.tokens, length * TOKEN_FIELDS),
      model: view(Int32Array, at.model, length),
      flags: view(Uint8Array, at.flags, length),
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
    const target = cacheFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, out, { mode: 0o600 });
    renameSync(temporary, target);
    // A cache of an older layout is of no use any more.
    for (let old = 1; old < VERSION; old++) rmSync(join(dir, `usage-v${old}.json`), { force: true });
  } catch {
    // A read-only home: the next run reads everything again, nothing else changes.
  }
}
