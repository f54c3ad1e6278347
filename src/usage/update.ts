/**
 * The last result brought up to date after some files changed (appended, added, removed, replaced), merging the
 * requests of only the files the change can reach, when that gives what merging everything gives (docs/usage.md).
 * Its cost follows the change, not the number of files: the files that did not change keep their rows, their
 * place in merge order and their sessions as the last result has them.
 *
 * The common change, a session log appended with requests of its own, costs what was appended: a file that shared
 * no request, whose earlier records are unchanged and whose new requests are in no other file (the key filters
 * and the other changed files say so), keeps its rows and has the new requests summed into them (`grownAlone`).
 *
 * A file's rows depend on the files it shares a request with, and on theirs in turn: its group, which the last
 * result keeps (condense.ts `CondensedFile.group`). What a changed file held before must be reached too: an
 * appended file still holds every request it held (it was read on from where it was left); a file replaced,
 * shrunk or removed is taken only when it shared no request before (`independent`). When no request a changed
 * file gained may be in another file (the scan cache's key filters say so), the change reaches the changed
 * files and their groups, and no key is looked up. Otherwise the files it reaches are found by looking keys up:
 * the changed files' in every other file's, then those of the files found in the files that shared a request
 * in the last result (the others can only be linked through a changed file), until no file is added.
 * Those files are merged and condensed by themselves: the requests of a group are owned and chosen as in a full
 * merge (no file outside it holds them), each file's rows summed in the same order. Files are put in merge order
 * (a file that grew may move), so the report sums the rows in the order a full run does. Codex running totals
 * link files through their thread, not their keys: a group holding any is merged with everything instead
 * (undefined here), as is a change reaching more than a quarter of the files (and more than a few).
 */
import { joinCharges } from "./charge-list.ts";
import { type Condensed, type CondensedFile, condense, condenseGrown } from "./condense.ts";
import { KeyTable, type LedgerSession, mergeOrder, mergeScans, type OrderKey, orderScans, sessionKey, sessionOf } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { TOKEN_FIELDS, type FileScan, type RecordColumns } from "./types.ts";

/** The files read on from where they were left (appended), by path: the scan of the version each grew from. */
export type Grown = ReadonlyMap<string, FileScan>;

/** Whether a file of the scan cache may hold a request key (cache.ts `LoadedCache.mayHold`: no false "no"). */
export type Elsewhere = (hi: number, lo: number) => boolean;

/** A change reaching more files than this share of them (and than `FEW_FILES`) is merged whole: the passes would cost more. */
const MAX_REACHED = 0.25;
const FEW_FILES = 64;

export function updateCondensed(
  last: Condensed,
  scans: readonly FileScan[],
  since: { readonly grown: Grown; readonly elsewhere: Elsewhere },
  pricer: Pricer,
  timeZone: string,
): Condensed | undefined {
  const change = changeSince(last, scans, since.grown);
  if (change === undefined) return undefined;
  const { changed, present, before, appended } = change;
  const limit = Math.max(FEW_FILES, Math.ceil(scans.length * MAX_REACHED));
  const alone = grownAlone(change, since.elsewhere);
  const rest = new Set([...changed].filter((scan) => !alone.has(scan)));
  // A request new to the cache is in no file the last result had, and one a changed file held before is in
  // the files of its group then, if in any: the groups are what the change reaches, and no key is looked up.
  const reached = anyNewKeyElsewhere(rest, appended, since.elsewhere)
    ? reach(scans, linkableOf(last.files, present), rest, limit)
    : groupsOf(rest, last.files, present, before);
  if (reached === undefined || reached.size > limit || [...reached].some((scan) => scan.records.threads !== undefined)) return undefined;
  // A file that grew alone and that the rest of the change reaches anyway is merged with what reached it.
  for (const scan of reached) alone.delete(scan);
  const again = new Map(
    reached.size === 0 ? [] : condense(mergeScans([...reached]), pricer, timeZone).files.map((file) => [file.path, file]),
  );
  for (const [scan, from] of alone) {
    again.set(scan.path, condenseGrown(before.get(scan.path) as CondensedFile, scan, from, pricer, timeZone));
  }
  const ordered = orderAfter(last.files, present, changed);
  const files: CondensedFile[] = [];
  for (const scan of ordered) {
    const file = again.get(scan.path) ?? before.get(scan.path);
    if (file === undefined) return undefined;
    files.push(file);
  }
  const sessions = sessionsAfter(last, before, ordered, changed);
  if (sessions === undefined) return undefined;
  const charges = joinCharges(files.map((file) => file.rows));
  const duplicates = files.reduce((sum, file) => sum + file.repeated, 0);
  return { ledger: { charges, sessions, duplicates, timeZone }, files };
}

/**
 * The scans that changed since the last result, and every scan by path; undefined when the change cannot be
 * applied to it: a file found twice (folders named that overlap), or a file that shared a request replaced or
 * removed (what it held before is not known any more).
 */
function changeSince(last: Condensed, scans: readonly FileScan[], grown: Grown): Change | undefined {
  const before = new Map(last.files.map((file) => [file.path, file]));
  const present = new Map(scans.map((scan) => [scan.path, scan]));
  if (before.size !== last.files.length || present.size !== scans.length) return undefined;
  const changed = new Set<FileScan>();
  const appended = new Map<FileScan, FileScan>();
  for (const scan of scans) {
    const kept = before.get(scan.path);
    if (kept !== undefined && kept.size === scan.size && kept.mtimeMs === scan.mtimeMs) continue;
    const from = grown.get(scan.path);
    const grewFromKept = kept !== undefined && from !== undefined && from.size === kept.size && from.mtimeMs === kept.mtimeMs;
    if (kept !== undefined && !kept.independent && !grewFromKept) return undefined;
    changed.add(scan);
    if (grewFromKept) appended.set(scan, from);
  }
  for (const file of last.files) if (!present.has(file.path) && !file.independent) return undefined;
  return { changed, present, before, appended };
}

/** What changed since the last result: the changed scans (and each appended one's earlier version), every scan by path, the last result's files by path. */
interface Change {
  readonly changed: Set<FileScan>;
  readonly appended: Map<FileScan, FileScan>;
  readonly present: Map<string, FileScan>;
  readonly before: Map<string, CondensedFile>;
}

/**
 * The appended files whose rows can be brought up to date by themselves (condense.ts `condenseGrown`), each
 * with the row its new records start at: a file that shared no request in the last result, in the same session,
 * whose earlier records are still its first rows as they were, and whose new records are of requests that no
 * file of the cache may hold (its own earlier version included) and no other changed file holds.
 */
function grownAlone(change: Change, elsewhere: Elsewhere): Map<FileScan, number> {
  const alone = new Map<FileScan, number>();
  for (const [scan, earlier] of change.appended) {
    const file = change.before.get(scan.path);
    if (file === undefined || !file.independent || file.session !== sessionKey(scan) || scan.records.threads !== undefined) continue;
    if (!samePrefix(earlier.records, scan.records)) continue;
    const { keyHi, keyLo, length } = scan.records;
    let fresh = true;
    for (let row = earlier.records.length; row < length && fresh; row++) fresh = !elsewhere(keyHi[row] ?? 0, keyLo[row] ?? 0);
    if (fresh) alone.set(scan, earlier.records.length);
  }
  if (alone.size > 0) dropShared(alone, change.changed);
  return alone;
}

/** Drops from `alone` the files a new request of which another changed file holds too. */
function dropShared(alone: Map<FileScan, number>, changed: ReadonlySet<FileScan>): void {
  const newRows = [...alone].reduce((sum, [scan, from]) => sum + scan.records.length - from, 0);
  const table = new KeyTable(newRows);
  const holder: FileScan[] = [];
  const shared = new Set<FileScan>();
  for (const [scan, from] of alone) {
    const { keyHi, keyLo, length } = scan.records;
    for (let row = from; row < length; row++) {
      const request = table.find(keyHi[row] ?? 0, keyLo[row] ?? 0, holder.length);
      if (request === holder.length) holder.push(scan);
      else if (holder[request] !== scan) shared.add(scan).add(holder[request] as FileScan);
    }
  }
  for (const scan of changed) {
    if (alone.has(scan)) continue;
    const { keyHi, keyLo, length } = scan.records;
    for (let row = 0; row < length; row++) {
      const hi = keyHi[row] ?? 0;
      const lo = keyLo[row] ?? 0;
      if (table.has(hi, lo)) shared.add(holder[table.find(hi, lo, -1)] as FileScan);
    }
  }
  for (const scan of shared) alone.delete(scan);
}

/** Whether every row of `earlier` is the same row of `now` (no earlier record replaced, moved or dropped). */
function samePrefix(earlier: RecordColumns, now: RecordColumns): boolean {
  const n = earlier.length;
  if (now.length < n || earlier.models.some((model, i) => now.models[i] !== model)) return false;
  // Compared as bytes (memcmp), not number by number: a few thousand rows, in code not yet optimised.
  const same = (a: Float64Array | Int32Array | Uint8Array, b: Float64Array | Int32Array | Uint8Array, count: number): boolean => {
    const bytes = count * a.BYTES_PER_ELEMENT;
    return Buffer.from(a.buffer, a.byteOffset, bytes).equals(Buffer.from(b.buffer, b.byteOffset, bytes));
  };
  return (
    same(earlier.keyHi, now.keyHi, n) &&
    same(earlier.keyLo, now.keyLo, n) &&
    same(earlier.time, now.time, n) &&
    same(earlier.cost, now.cost, n) &&
    same(earlier.tokens, now.tokens, n * TOKEN_FIELDS) &&
    same(earlier.model, now.model, n) &&
    same(earlier.flags, now.flags, n)
  );
}

/**
 * Whether a changed file holds a request key that a file of the cache may hold too and that it did not hold
 * before (an appended file's earlier keys were its own, or the last result says whom it shared them with).
 */
function anyNewKeyElsewhere(changed: ReadonlySet<FileScan>, appended: ReadonlyMap<FileScan, FileScan>, elsewhere: Elsewhere): boolean {
  for (const scan of changed) {
    const earlier = appended.get(scan);
    const held = earlier === undefined ? undefined : keysOf(earlier);
    const { keyHi, keyLo, length } = scan.records;
    for (let row = 0; row < length; row++) {
      const hi = keyHi[row] ?? 0;
      const lo = keyLo[row] ?? 0;
      if (held?.has(hi, lo) !== true && elsewhere(hi, lo)) return true;
    }
  }
  return false;
}

/** A table of the scan's request keys. */
function keysOf(scan: FileScan): KeyTable {
  const { keyHi, keyLo, length } = scan.records;
  const table = new KeyTable(length);
  for (let row = 0; row < length; row++) table.find(keyHi[row] ?? 0, keyLo[row] ?? 0, 0);
  return table;
}

/** The present scans of the files that shared a request in the last result. */
function linkableOf(lastFiles: readonly CondensedFile[], present: ReadonlyMap<string, FileScan>): FileScan[] {
  const linkable: FileScan[] = [];
  for (const file of lastFiles) {
    const scan = file.independent ? undefined : present.get(file.path);
    if (scan !== undefined) linkable.push(scan);
  }
  return linkable;
}

/**
 * The changed files and the files of their groups in the last result (condense.ts `CondensedFile.group`): when
 * no changed file gained a request another file may hold, what a change can reach is what it was linked to.
 */
function groupsOf(
  changed: ReadonlySet<FileScan>,
  lastFiles: readonly CondensedFile[],
  present: ReadonlyMap<string, FileScan>,
  before: ReadonlyMap<string, CondensedFile>,
): Set<FileScan> {
  const found = new Set(changed);
  const groups = new Set<string>();
  for (const scan of changed) {
    const file = before.get(scan.path);
    if (file !== undefined && !file.independent) groups.add(file.group);
  }
  if (groups.size === 0) return found;
  for (const file of lastFiles) {
    const scan = groups.has(file.group) ? present.get(file.path) : undefined;
    if (scan !== undefined) found.add(scan);
  }
  return found;
}

/**
 * The changed files and every file linked to them through shared request keys, or undefined past `limit` files.
 * The first pass looks the changed files' keys up in every other file; each later pass looks the keys of the
 * files found last up in the `linkable` ones only (the files that shared a request in the last result: the
 * others can only share one with a changed file, which the first pass saw).
 */
function reach(
  scans: readonly FileScan[],
  linkable: readonly FileScan[],
  changed: ReadonlySet<FileScan>,
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
