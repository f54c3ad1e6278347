/**
 * The scan cache: what each file gave, keyed by path with its size and mtime, under
 * $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream). An unchanged file is not read again; a file that
 * grew (session logs are appended to) is read from where the last read stopped. Records are stored as arrays
 * by column, to keep the file small and quick to load. A cache that cannot be read is ignored; one that cannot be written is skipped.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileScan, UsageRecord } from "./types.ts";

const VERSION = 3;

/**
 * A file's records as stored, by column (fewer and flatter values than one array per record: the cache loads
 * in a fraction of the time): keys, times, model index into `models` (-1: none), six counts per record (input,
 * output, cache read, cache write, one-hour cache write, reasoning), flags; costs and threads only when any
 * record has one.
 */
interface StoredRecords {
  models: string[];
  keys: string[];
  times: (number | null)[];
  modelIndex: number[];
  counts: number[];
  flags: number[];
  costs?: (number | null)[];
  threads?: (string | null)[];
}
type StoredScan = Omit<FileScan, "records"> & { stored: StoredRecords };

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
    for (const { stored: columns, ...scan } of stored.files) out.set(scan.path, { ...scan, records: fromStored(columns) });
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
    for (const { records, ...scan } of scans) files.push({ ...scan, stored: toStored(records) });
    const target = cacheFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify({ version: VERSION, files }), { mode: 0o600 });
    renameSync(temporary, target);
    // A cache of an older layout is of no use any more.
    for (let old = 1; old < VERSION; old++) rmSync(join(dir, `usage-v${old}.json`), { force: true });
  } catch {
    // A read-only home: the next run reads everything again, nothing else changes.
  }
}

function toStored(records: readonly UsageRecord[]): StoredRecords {
  const out: StoredRecords = { models: [], keys: [], times: [], modelIndex: [], counts: [], flags: [] };
  const costs: (number | null)[] = [];
  const threads: (string | null)[] = [];
  for (const r of records) {
    const t = r.tokens;
    let model = r.model === null ? -1 : out.models.indexOf(r.model);
    if (model === -1 && r.model !== null) model = out.models.push(r.model) - 1;
    out.keys.push(r.key);
    out.times.push(r.time);
    out.modelIndex.push(model);
    out.counts.push(t.input, t.output, t.cacheRead, t.cacheWrite, t.cacheWrite1h, t.reasoning);
    out.flags.push((r.sidechain ? SIDECHAIN : 0) | (r.cumulative === true ? CUMULATIVE : 0));
    costs.push(r.costUsd);
    threads.push(r.thread ?? null);
  }
  if (costs.some((c) => c !== null)) out.costs = costs;
  if (threads.some((t) => t !== null)) out.threads = threads;
  return out;
}

function fromStored(s: StoredRecords): UsageRecord[] {
  const out: UsageRecord[] = new Array(s.keys.length);
  for (let i = 0; i < s.keys.length; i++) {
    const c = 6 * i;
    const flags = s.flags[i] ?? 0;
    const record: UsageRecord = {
      key: s.keys[i] as string,
      time: s.times[i] ?? null,
      model: s.models[s.modelIndex[i] ?? -1] ?? null,
      tokens: {
        input: s.counts[c] ?? 0,
        output: s.counts[c + 1] ?? 0,
        cacheRead: s.counts[c + 2] ?? 0,
        cacheWrite: s.counts[c + 3] ?? 0,
        cacheWrite1h: s.counts[c + 4] ?? 0,
        reasoning: s.counts[c + 5] ?? 0,
      },
      costUsd: s.costs?.[i] ?? null,
      sidechain: (flags & SIDECHAIN) !== 0,
    };
    out[i] = (flags & CUMULATIVE) !== 0 ? { ...record, cumulative: true, thread: s.threads?.[i] ?? record.key } : record;
  }
  return out;
}
