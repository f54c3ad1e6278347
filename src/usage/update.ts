/**
 * The last result brought up to date after some files changed (appended, added, removed, replaced), merging the
 * requests of only the files the change can reach, when that gives what merging everything gives (docs/usage.md).
 *
 * A file's rows depend on the files it shares a request with, and on theirs in turn: its group. The files the
 * change reaches are the changed files and every file linked to them by a shared request key, found by looking
 * their keys up in the others' (a few passes over the key columns, no merge). What a changed file held before
 * must be reached too: an appended file still holds every request it held (it was read on from where it was
 * left); a file replaced, shrunk or removed is taken only when it shared no request before (`independent`).
 * Those files are merged and condensed by themselves: the requests of a group are owned and chosen as in a full
 * merge (no file outside it holds them), each file's rows summed in the same order. Every other file keeps its
 * rows, and files are put in merge order (a file that grew may move), so the report sums the rows in the order a
 * full run does. Codex running totals link files through their thread, not their keys: a group holding any is
 * merged with everything instead (undefined here), as is a change reaching more than a quarter of the files
 * (and more than a few).
 */
import { type Condensed, type CondensedFile, condense } from "./condense.ts";
import { KeyTable, mergeScans, orderScans, sessionsOf } from "./ledger.ts";
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
  const before = new Map(last.files.map((file) => [file.path, file]));
  const present = new Set(scans.map((scan) => scan.path));
  // A file found twice (folders named that overlap) is two scans of one path: merged whole.
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
  const reached = reach(scans, changed, Math.max(FEW_FILES, Math.ceil(scans.length * MAX_REACHED)));
  if (reached === undefined || [...reached].some((scan) => scan.records.threads !== undefined)) return undefined;
  const again = new Map(condense(mergeScans([...reached]), pricer, timeZone).files.map((file) => [file.path, file]));
  const ordered = orderScans(scans);
  const files: CondensedFile[] = [];
  for (const scan of ordered) {
    const file = again.get(scan.path) ?? before.get(scan.path);
    if (file === undefined) return undefined;
    files.push(file);
  }
  const charges = files.flatMap((file) => file.rows);
  const duplicates = files.reduce((sum, file) => sum + file.repeated, 0);
  return { ledger: { charges, sessions: sessionsOf(ordered).sessions, duplicates, timeZone }, files };
}

/**
 * The changed files and every file linked to them through shared request keys, or undefined past `limit` files:
 * each pass looks the keys of the files found last up in every file not found yet.
 */
function reach(scans: readonly FileScan[], changed: ReadonlySet<FileScan>, limit: number): Set<FileScan> | undefined {
  const found = new Set(changed);
  let last: FileScan[] = [...changed];
  while (last.length > 0) {
    if (found.size > limit) return undefined;
    const keys = new KeyTable(last.reduce((sum, scan) => sum + scan.records.length, 0));
    for (const scan of last) {
      const { keyHi, keyLo, length } = scan.records;
      for (let row = 0; row < length; row++) keys.find(keyHi[row] ?? 0, keyLo[row] ?? 0, 0);
    }
    last = scans.filter((scan) => !found.has(scan) && holdsAnyKey(scan, keys));
    for (const scan of last) found.add(scan);
  }
  return found;
}

/** Whether any record of the scan has a key of the table. */
function holdsAnyKey(scan: FileScan, keys: KeyTable): boolean {
  const { keyHi, keyLo, length } = scan.records;
  for (let row = 0; row < length; row++) if (keys.has(keyHi[row] ?? 0, keyLo[row] ?? 0)) return true;
  return false;
}
