/**
 * A file's scan as a loaded cache frame holds it (cache.ts). Every run uses every file's path, size and mtime (to
 * match the files found) and its request keys (to find the files a change reaches); the rest of a scan (its
 * agent, offset, seam, facts, scanner state, models, threads) only for the few files that changed or are linked
 * to one. So each file's rest is stored as a JSON text of its own (its entry), read from the cache file and
 * parsed when one of those fields is first used: loading costs the numbers, not a read and a parse of every
 * file's facts. Like the columns (stored-columns.ts), an entry not read before the cache is closed cannot be.
 */
import { type ColumnsEntry, type FrameStore, StoredColumns, type StoredRegion } from "./stored-columns.ts";
import type { FileScan, ScannerState, SessionFacts, UsageAgent } from "./types.ts";

/** A file's entry: its scan without what the frame's columns hold (path, size, mtime, records). */
export interface StoredEntry extends ColumnsEntry {
  readonly agent: UsageAgent;
  readonly offset: number;
  readonly seam?: number | undefined;
  readonly badLines: number;
  readonly facts: SessionFacts;
  readonly state: ScannerState;
}

/**
 * The entry of a scan as it is written: the JSON text of a scan read this run, or, for a scan loaded from the
 * cache, the bytes it was loaded from (a compaction copies the entries it never parsed, it does not parse them).
 */
export function entryText(scan: FileScan): string | Uint8Array {
  if (scan instanceof CachedScan) return scan.storedEntry();
  const { agent, offset, seam, badLines, facts, state } = scan;
  const { models, threads } = scan.records;
  const entry: StoredEntry = { agent, offset, seam, badLines, facts, state, models, ...(threads === undefined ? {} : { threads }) };
  return JSON.stringify(entry);
}

/**
 * A frame's entries: one block of UTF-8 JSON texts, entry `i` ending at byte `ends[i]` (starting at the end of
 * `i - 1`), read from the cache file as they are used (stored-columns.ts `StoredRegion`).
 */
export interface FrameEntries {
  readonly region: Pick<StoredRegion, "bytes">;
  readonly ends: Int32Array;
}

/** Where a file's records are in its frame: its first record, how many, and the byte offset of its block. */
export interface RecordsPlace {
  readonly first: number;
  readonly length: number;
  readonly block: number;
}

/** A scan loaded from the cache: path, size, mtime and keys at hand, the rest parsed from its entry when first used. */
export class CachedScan implements FileScan {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly records: StoredColumns;
  private readonly entries: FrameEntries;
  private readonly index: number;
  private parsed: StoredEntry | undefined;

  constructor(path: string, size: number, mtimeMs: number, frame: FrameStore, entries: FrameEntries, index: number, place: RecordsPlace) {
    this.path = path;
    this.size = size;
    this.mtimeMs = mtimeMs;
    this.entries = entries;
    this.index = index;
    this.records = new StoredColumns(frame, place.first, place.length, place.block, this);
  }

  /** The entry, parsed on first use (the same object after: nothing in it is changed by a reader). */
  get entry(): StoredEntry {
    this.parsed ??= JSON.parse(this.storedEntry().toString("utf8")) as StoredEntry;
    return this.parsed;
  }

  /** The entry's bytes as they were stored. */
  storedEntry(): Buffer {
    return this.entries.region.bytes(this.start(), this.entries.ends[this.index] ?? 0);
  }

  private start(): number {
    return this.index === 0 ? 0 : (this.entries.ends[this.index - 1] ?? 0);
  }

  get agent(): UsageAgent {
    return this.entry.agent;
  }
  get offset(): number {
    return this.entry.offset;
  }
  get seam(): number | undefined {
    return this.entry.seam;
  }
  get badLines(): number {
    return this.entry.badLines;
  }
  get facts(): SessionFacts {
    return this.entry.facts;
  }
  get state(): ScannerState {
    return this.entry.state;
  }
}

/**
 * The scan as a plain object (each field read once): a scan to post to a worker, since a structured clone, as a
 * spread, copies own fields only and a `CachedScan`'s are getters.
 */
export function plainScan(scan: FileScan, records = scan.records): FileScan {
  const { path, agent, size, mtimeMs, offset, seam, badLines, facts, state } = scan;
  return { path, agent, size, mtimeMs, offset, seam, badLines, facts, state, records };
}
