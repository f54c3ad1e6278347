/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under
 * $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream). An unchanged file is not read again; a file that
 * grew (session logs are appended to) is read from where the last read stopped. Records are stored as arrays
 * to keep the file small. A cache that cannot be read is ignored; one that cannot be written is skipped.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileScan, UsageRecord } from "./types.ts";

const VERSION = 2;

/**
 * A record as stored: [key, time, model, input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning, costUsd,
 * flags, thread], the model an index into the file's `models` (-1: none).
 */
type StoredRecord = [string, number | null, number, number, number, number, number, number, number, number | null, number, string?];
type StoredScan = Omit<FileScan, "records"> & { models: string[]; records: StoredRecord[] };

const SIDECHAIN = 1;
const CUMULATIVE = 2;

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env.XDG_CACHE_HOME ?? (env.HOME === undefined ? undefined : join(env.HOME, ".cache"));
  return base === undefined ? undefined : join(base, "agentstream");
}

function cacheFile(dir: string): string {
  return join(dir, `usage-v${VERSION}.json`);
}

export function loadCache(dir: string | undefined): Map<string, FileScan> {
  const out = new Map<string, FileScan>();
  if (dir === undefined) return out;
  try {
    const stored = JSON.parse(readFileSync(cacheFile(dir), "utf8")) as { version: number; files: StoredScan[] };
    if (stored.version !== VERSION) return out;
    for (const { models, records, ...scan } of stored.files) {
      out.set(scan.path, { ...scan, records: records.map((row) => fromStored(row, models)) });
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
    for (const scan of scans) {
      const models: string[] = [];
      files.push({ ...scan, models, records: scan.records.map((record) => toStored(record, models)) });
    }
    const target = cacheFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: VERSION, files }), { mode: 0o600 });
    renameSync(temporary, target);
  } catch {
    // A read-only home: the next run reads everything again, nothing else changes.
  }
}

function toStored(r: UsageRecord, models: string[]): StoredRecord {
  const t = r.tokens;
  const flags = (r.sidechain ? SIDECHAIN : 0) | (r.cumulative === true ? CUMULATIVE : 0);
  let model = r.model === null ? -1 : models.indexOf(r.model);
  if (model === -1 && r.model !== null) model = models.push(r.model) - 1;
  const row: StoredRecord = [
    r.key,
    r.time,
    model,
    t.input,
    t.output,
    t.cacheRead,
    t.cacheWrite,
    t.cacheWrite1h,
    t.reasoning,
    r.costUsd,
    flags,
  ];
  if (r.thread !== undefined) row.push(r.thread);
  return row;
}

function fromStored(row: StoredRecord, models: readonly string[]): UsageRecord {
  const [key, time, modelIndex, input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning, costUsd, flags, thread] = row;
  const record: UsageRecord = {
    key,
    time,
    model: models[modelIndex] ?? null,
    tokens: { input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning },
    costUsd,
    sidechain: (flags & SIDECHAIN) !== 0,
  };
  return (flags & CUMULATIVE) !== 0 ? { ...record, cumulative: true, thread: thread ?? key } : record;
}
