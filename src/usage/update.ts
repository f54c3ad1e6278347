/**
 * The last result brought up to date after some files changed (appended, added, removed, replaced), merging the
 * requests of only the files the change can reach, when that gives what merging everything gives (docs/usage.md).
 * Its cost follows the change, not the number of files: the files that did not change keep their rows, their
 * place in merge order and their sessions as the last result has them.
 *
 * A file's rows depend on the files it shares a request with, and on theirs in turn: its group. The files the
 * change reaches are the changed files and every file linked to them by a shared request key, found by looking
 * their keys up in the others' (no merge). A file the last result found sharing no request (`independent`) can
 * only be linked through a changed file's keys: after the first pass, only the other files are looked at. What a
 * changed file held before must be reached too: an appended file still holds every request it held (it was read
 * on from where it was left); a file replaced, shrunk or removed is taken only when it shared no request before.
 * Those files are merged and condensed by themselves: the requests of a group are owned and chosen as in a full
 * merge (no file outside it holds them), each file's rows summed in the same order. Files are put in merge order
 * (a file that grew may move), so the report sums the rows in the order a full run does. Codex running totals
 * link files through their thread, not their keys: a group holding any is merged with everything instead
 * (undefined here), as is a change reaching more than a quarter of the files (and more than a few).
 */
import { type Condensed, type CondensedFile, condense } from "./condense.ts";
import { KeyTable, type LedgerSession, mergeOrder, mergeScans, type OrderKey, orderScans, sessionKey, sessionOf } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import type { FileScan } from "./types.ts";

/** Where an appended file was read on from: the size and mtime of the version it grew from. */
export type Grown = ReadonlyMap<string, { readonly size: number; readonly mtimeMs: number }>;

/** A change reaching more files than this share of them (and than `FEW_FILES`) is merged whole: the passes would cost more. */
const MAX_REACHED = 0.25;
const FEW_FILES = 64;

export function updateCondensed(
  last: Condensed,
  scans: readonly FileScan[],
  grown: Grown,
  pricer: Pricer,
  timeZone: string,
): Condensed | undefined {
  const change = changeSince(last, scans, grown);
  if (change === undefined) return undefined;
  const { changed, present, before } = change;
  const linkable = last.files.filter((file) => !file.independent && present.has(file.path));
  const limit = Math.max(FEW_FILES, Math.ceil(scans.length * MAX_REACHED));
  const reached = reach(
    scans,
    changed,
    linkable.map((file) => present.get(file.path) as FileScan),
    limit,
  );
  if (reached === undefined || [...reached].some((scan) => scan.records.threads !== undefined)) return undefined;
  const again = new Map(condense(mergeScans([...reached]), pricer, timeZone).files.map((file) => [file.path, file]));
  const ordered = orderAfter(last.files, present, changed);
  const files: CondensedFile[] = [];
  for (const scan of ordered) {
    const file = again.get(scan.path) ?? before.get(scan.path);
    if (file === undefined) return undefined;
    files.push(file);
  }
  const sessions = sessionsAfter(last, before, ordered, changed);
  if (sessions === undefined) return undefined;
  const charges = files.flatMap((file) => file.rows);
  const duplicates = files.reduce((sum, file) => sum + file.repeated, 0);
  return { ledger: { charges, sessions, duplicates, timeZone }, files };
}

/**
 * The scans that changed since the last result, and every scan by path; undefined when the change cannot be
 * applied to it: a file found twice (folders named that overlap), or a file that shared a request replaced or
 * removed (what it held before is not known any more).
 */
function changeSince(
  last: Condensed,
  scans: readonly FileScan[],
  grown: Grown,
): { changed: Set<FileScan>; present: Map<string, FileScan>; before: Map<string, CondensedFile> } | undefined {
  const before = new Map(last.files.map((file) => [file.path, file]));
  const present = new Map(scans.map((scan) => [scan.path, scan]));
  if (before.size !== last.files.length || present.size !== scans.length) return undefined;
  const changed = new Set<FileScan>();
  for (const scan of scans) {
    const kept = before.get(scan.path);
    if (kept !== undefined && kept.size === scan.size && kept.mtimeMs === scan.mtimeMs) continue;
    const from = grown.get(scan.path);
    const appended = kept !== undefined && from !== undefined && from.size === kept.size && from.mtimeMs === kept.mtimeMs;
    if (kept !== undefined && !kept.independent && !appended) return undefined;
    changed.add(scan);
  }
  for (const file of last.files) if (!present.has(file.path) && !file.independent) return undefined;
  return { changed, present, before };
}

/**
 * The changed files and every file linked to them through shared request keys, or undefined past `limit` files.
 * The first pass looks the changed files' keys up in every other file; each later pass looks the keys of the
 * files found last up in the `linkable` ones only (the files that shared a request in the last result: the
 * others can only share one with a changed file, which the first pass saw).
 */
function reach(
  scans: readonly FileScan[],
  changed: ReadonlySet<FileScan>,
  linkable: readonly FileScan[],
  limit: number,
): Set<FileScan> | undefined {
  const found = new Set(changed);
  let last: FileScan[] = [...changed];
  for (let pass = 0; last.length > 0; pass++) {
    if (found.size > limit) return undefined;
    last = new ProbeKeys(last).holders(pass === 0 ? scans : linkable, found);
    for (const scan of last) found.add(scan);
  }
  return found;
}

/** Bits of the filter in front of the key table: 2^20 (128 KB), a few % of them set by thousands of keys. */
const FILTER_BITS = 1 << 20;

/**
 * The filter's bit for a key: 20 low bits of its `keyLo` as stored (`words`: the column seen as 16-bit words,
 * four per key). Read as small integers: a Float64 read in code not yet optimised makes a heap number, and
 * a quarter of a million of them made the garbage collector copy everything the run holds.
 */
function filterBit(words: Uint16Array, row: number): number {
  return (words[4 * row] ?? 0) | (((words[4 * row + 1] ?? 0) & 0xf) << 16);
}

function wordsOf(column: Float64Array): Uint16Array {
  return new Uint16Array(column.buffer, column.byteOffset, column.length * 4);
}

/**
 * The keys of some files, to look other files' keys up in. The first pass looks every key of every file up:
 * a bit per key turns most of them away with one read, before the table is probed.
 */
class ProbeKeys {
  private readonly table: KeyTable;
  private readonly filter = new Uint32Array(FILTER_BITS / 32);

  constructor(scans: readonly FileScan[]) {
    this.table = new KeyTable(scans.reduce((sum, scan) => sum + scan.records.length, 0));
    for (const scan of scans) {
      const { keyHi, keyLo, length } = scan.records;
      const words = wordsOf(keyLo);
      for (let row = 0; row < length; row++) {
        this.table.find(keyHi[row] ?? 0, keyLo[row] ?? 0, 0);
        const bit = filterBit(words, row);
        this.filter[bit >>> 5] = (this.filter[bit >>> 5] ?? 0) | (1 << (bit & 31));
      }
    }
  }

  /** The candidates not in `skip` that hold any of the keys (one loop over every key, not a call per file). */
  holders(candidates: readonly FileScan[], skip: ReadonlySet<FileScan>): FileScan[] {
    const { filter, table } = this;
    const out: FileScan[] = [];
    for (const scan of candidates) {
      if (skip.has(scan)) continue;
      const { keyHi, keyLo, length } = scan.records;
      const words = wordsOf(keyLo);
      for (let row = 0; row < length; row++) {
        const bit = filterBit(words, row);
        if (((filter[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0 || !table.has(keyHi[row] ?? 0, keyLo[row] ?? 0)) continue;
        out.push(scan);
        break;
      }
    }
    return out;
  }
}

/**
 * Every present scan in merge order (ledger.ts `orderScans`): the files that did not change, in the last
 * result's order (their start, end and path are the same, and the result keeps them: no scan's facts are read),
 * with the changed ones sorted and each placed among them by binary search.
 */
function orderAfter(
  lastFiles: readonly CondensedFile[],
  present: ReadonlyMap<string, FileScan>,
  changed: ReadonlySet<FileScan>,
): FileScan[] {
  const kept: { scan: FileScan; file: CondensedFile }[] = [];
  for (const file of lastFiles) {
    const scan = present.get(file.path);
    if (scan !== undefined && !changed.has(scan)) kept.push({ scan, file });
  }
  const moved = orderScans([...changed]);
  const ordered: FileScan[] = [];
  let k = 0;
  for (const scan of moved) {
    const place = placeIn(kept, k, { start: scan.facts.start, end: scan.facts.end, path: scan.path });
    while (k < place) ordered.push((kept[k++] as { scan: FileScan }).scan);
    ordered.push(scan);
  }
  while (k < kept.length) ordered.push((kept[k++] as { scan: FileScan }).scan);
  return ordered;
}

/** Where `key` goes among `kept[from…]` (in merge order): the first place whose file is merged after it. */
function placeIn(kept: readonly { file: CondensedFile }[], from: number, key: OrderKey): number {
  let low = from;
  let high = kept.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (mergeOrder((kept[middle] as { file: CondensedFile }).file, key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The sessions of the ordered scans, in the order a full merge makes them (ledger.ts `sessionsOf`): a session
 * none of whose files changed, came or went is the last result's; the others are made again from their files.
 * Undefined when a file's session is not known (a result that does not match its files).
 */
function sessionsAfter(
  last: Condensed,
  before: ReadonlyMap<string, CondensedFile>,
  ordered: readonly FileScan[],
  changed: ReadonlySet<FileScan>,
): Map<string, LedgerSession> | undefined {
  const remade = new Set<string>();
  for (const scan of changed) {
    remade.add(sessionKey(scan));
    const file = before.get(scan.path);
    if (file !== undefined) remade.add(file.session);
  }
  // A file gone: its session loses it.
  if (ordered.length !== last.files.length + countNew(changed, before)) {
    const present = new Set(ordered.map((scan) => scan.path));
    for (const file of last.files) if (!present.has(file.path)) remade.add(file.session);
  }
  const sessions = new Map<string, LedgerSession>();
  for (const scan of ordered) {
    const key = changed.has(scan) ? sessionKey(scan) : before.get(scan.path)?.session;
    if (key !== undefined && remade.has(key)) {
      sessionOf(sessions, scan);
      continue;
    }
    const kept = key === undefined ? undefined : last.ledger.sessions.get(key);
    if (key === undefined || kept === undefined) return undefined;
    if (!sessions.has(key)) sessions.set(key, kept);
  }
  return sessions;
}

/** The changed scans of files the last result did not have. */
function countNew(changed: ReadonlySet<FileScan>, before: ReadonlyMap<string, CondensedFile>): number {
  let count = 0;
  for (const scan of changed) if (!before.has(scan.path)) count++;
  return count;
}
