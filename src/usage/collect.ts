/**
 * `sessions` and `usage` start here: find the files, take what the cache already knows, scan the rest (from
 * where an appended file was left), merge everything into one ledger (or, when the files that changed hold
 * requests of their own alone, bring the last result up to date with them: update.ts), and refresh the caches.
 */
import { cacheDir } from "./cache-dir.ts";
import { loadCache, saveCache } from "./cache.ts";
import { resolve, sep } from "node:path";
import { defaultRoots, discoverDefault, discoverPaths, type FoundFile, type ReadFailure } from "./discover.ts";
import { buildLedger, type Ledger, mergeScans } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { condense } from "./condense.ts";
import { type LastResult, loadLastResult, resultKey, saveResult } from "./result-cache.ts";
import { type Elsewhere, type Grown, updateCondensed } from "./update.ts";
import type { ScanFailure } from "./scan-file.ts";
import { type ScanPlan, scanFiles } from "./scan-pool.ts";
import type { FileScan } from "./types.ts";

export interface CollectOptions {
  /** Files and folders named; empty: the agents' standard locations. */
  readonly paths: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** false: neither read nor write the cache (`--no-cache`). */
  readonly cache: boolean;
  /** Worker threads (default: the cores available, for large inputs). */
  readonly threads?: number | undefined;
  /** Told how the files that changed will be scanned, before they are (scan-pool.ts `ScanPlan`). */
  readonly onScan?: ((plan: ScanPlan) => void) | undefined;
  /**
   * With prices and a time zone, the ledger comes back condensed (result-cache.ts: each request priced on its own,
   * then summed by session, model and day in the zone), and a run over the same unchanged files reuses the last
   * result. Without them, one charge per request.
   */
  readonly condensed?: { readonly pricer: Pricer; readonly timeZone: string } | undefined;
}

export interface Collected {
  readonly ledger: Ledger;
  readonly files: number;
  /** Files read this time (the rest came from the cache unchanged). */
  readonly read: number;
  /** Paths named that do not exist. */
  readonly missing: readonly string[];
  /** Files and folders that could not be read (permission denied, a link to nothing), with why: tried again each run. */
  readonly failed: readonly ReadFailure[];
  /** Files read that are not a Claude, Codex or Gemini session log. */
  readonly skipped: readonly string[];
  /**
   * How the condensed ledger was made: the last result as it was (`kept`), the last result with the changed
   * files' rows made again (`updated`), or every request merged (`merged`; also without prices).
   */
  readonly made: "kept" | "updated" | "merged";
}

export async function collectUsage(options: CollectOptions): Promise<Collected> {
  const { files, missing, failed } = options.paths.length === 0 ? discoverDefault(options.env) : discoverPaths(options.paths);
  const roots = options.paths.length === 0 ? defaultRoots(options.env) : options.paths.map((path) => resolve(path));
  const dir = options.cache ? cacheDir(options.env) : undefined;
  const condensed = options.condensed;
  const key = condensed === undefined ? undefined : resultKey(condensed.pricer, condensed.timeZone);
  const last =
    dir !== undefined && key !== undefined && condensed !== undefined ? loadLastResult(dir, files, key, condensed.timeZone) : undefined;
  if (last?.exact === true) {
    return { ledger: last.condensed.ledger, files: files.length, read: 0, missing, failed, skipped: last.unreadable, made: "kept" };
  }
  const cache = loadCache(dir);
  try {
    return await collectWith(cache.scans, files, { ...options, dir, roots, key, last, missing, failed, mayHold: cache.mayHold });
  } finally {
    cache.close();
  }
}

/** The rest of `collectUsage`, with the cache loaded: every column it needs is read before the cache is closed. */
async function collectWith(
  cached: Map<string, FileScan>,
  files: readonly FoundFile[],
  context: CollectOptions & {
    dir: string | undefined;
    roots: readonly string[];
    key: string | undefined;
    last: LastResult | undefined;
    missing: string[];
    failed: ReadFailure[];
    mayHold: Elsewhere;
  },
): Promise<Collected> {
  const { dir, roots, key, last, missing, condensed, mayHold } = context;
  const failed = [...context.failed];
  const scans: FileScan[] = [];
  const toRead: (FoundFile & { previous: FileScan | undefined; previousMayHold: Elsewhere })[] = [];
  for (const file of files) {
    const known = cached.get(file.path);
    if (known !== undefined && known.size === file.size && known.mtimeMs === file.mtimeMs) scans.push(known);
    else
      toRead.push({
        ...file,
        // Read on from where it was left if it was appended to (scanFile checks in the same open).
        previous: known !== undefined && known.size < file.size ? known : undefined,
        previousMayHold: mayHold,
      });
  }
  const fresh = await scanFiles(toRead, { threads: context.threads, onPlan: context.onScan });
  // Files that are not session logs: the result keeps them, so that a run over the same files can be kept.
  const unreadable: FoundFile[] = [];
  const changed: FileScan[] = [];
  fresh.forEach((scan, i) => {
    const file = toRead[i];
    if (file === undefined) return;
    if (scan === undefined) unreadable.push(file);
    // Not kept anywhere: the file is tried again next run, and its failure said again.
    else if ("failed" in scan) failed.push({ path: file.path, reason: scan.failed });
    else {
      scans.push(scan);
      changed.push(scan);
      cached.set(scan.path, scan);
    }
  });
  const gone = forgotten(cached, files, roots);
  if (dir !== undefined && (changed.length > 0 || gone.length > 0)) saveCache(dir, cached.values(), { changed, forgotten: gone });
  const common = { files: files.length, read: toRead.length, missing, failed, skipped: unreadable.map((file) => file.path) };
  if (condensed === undefined) return { ledger: buildLedger(scans), ...common, made: "merged" };
  const { pricer, timeZone } = condensed;
  // With a file that could not be read, every request is merged again and nothing is kept for the next run: a
  // result short of that file must not stand for the files found.
  const complete = failed.length === 0;
  const updated =
    last === undefined || !complete
      ? undefined
      : updateCondensed(last.condensed, scans, { grown: grownFrom(toRead, fresh), elsewhere: mayHold }, pricer, timeZone);
  const result = updated ?? condense(mergeScans(scans), pricer, timeZone);
  // An update is saved from the columns of the result it updates (what it kept is copied as it was stored).
  if (dir !== undefined && key !== undefined && complete)
    saveResult(dir, key, result, unreadable, updated === undefined ? undefined : last);
  return { ledger: result.ledger, ...common, made: updated === undefined ? "merged" : "updated" };
}

/** The files read on from where they were left, with the version they grew from. */
function grownFrom(
  toRead: readonly { path: string; previous: FileScan | undefined }[],
  fresh: readonly (FileScan | ScanFailure | undefined)[],
): Grown {
  const grown = new Map<string, FileScan>();
  toRead.forEach(({ path, previous }, i) => {
    const scan = fresh[i];
    if (previous !== undefined && scan !== undefined && !("failed" in scan) && scan.readOn === true) grown.set(path, previous);
  });
  return grown;
}

/**
 * Drops from the cache the files that were under the folders just walked and are gone (deleted sessions), so
 * the cache does not grow with files that no longer exist. Returns their paths.
 */
function forgotten(cached: Map<string, FileScan>, found: readonly FoundFile[], roots: readonly string[]): string[] {
  // The common case, every cached path found as it is: nothing to resolve.
  const paths = new Set(found.map((file) => file.path));
  if (paths.size === cached.size && found.every((file) => cached.has(file.path))) return [];
  const present = new Set(found.map((file) => resolve(file.path)));
  const dropped: string[] = [];
  for (const path of cached.keys()) {
    const absolute = resolve(path);
    if (present.has(absolute) || !roots.some((root) => absolute.startsWith(root.endsWith(sep) ? root : root + sep))) continue;
    cached.delete(path);
    dropped.push(path);
  }
  return dropped;
}
