/**
 * `sessions` and `usage` start here: find the files, take what the scan cache already knows, scan the rest (from
 * where an appended file was left), merge everything into one ledger, and refresh the cache.
 */
import { cacheDir } from "./cache-dir.ts";
import { cacheFile, loadCache, saveCache } from "./cache.ts";
import { resolve, sep } from "node:path";
import { defaultRoots, discoverDefault, discoverPaths, type FoundFile, type ReadFailure } from "./discover.ts";
import { buildLedger, type Ledger, mergeScans } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { condense } from "./condense.ts";
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
   * With prices and a time zone, the ledger comes back condensed (condense.ts: each request priced on its own,
   * then summed by session, model and day in the zone). Without them, one charge per request.
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
  /** Files read that are not a session log of any source (sources.ts). */
  readonly skipped: readonly string[];
  /** A cache file that was there and could not be used (damaged, not a regular file): its path and why; it was made again. */
  readonly cacheRebuilt?: { readonly path: string; readonly why: string } | undefined;
}

export async function collectUsage(options: CollectOptions): Promise<Collected> {
  const { files, missing, failed: unread } = options.paths.length === 0 ? discoverDefault(options.env) : discoverPaths(options.paths);
  const roots = options.paths.length === 0 ? defaultRoots(options.env) : options.paths.map((path) => resolve(path));
  const dir = options.cache ? cacheDir(options.env) : undefined;
  const cache = loadCache(dir);
  const cached = cache.scans;
  const failed = [...unread];
  const scans: FileScan[] = [];
  const toRead: (FoundFile & { previous: FileScan | undefined })[] = [];
  for (const file of files) {
    const known = cached.get(file.path);
    if (known !== undefined && known.size === file.size && known.mtimeMs === file.mtimeMs) scans.push(known);
    // Read on from where it was left if it was appended to (scanFile checks in the same open).
    else toRead.push({ ...file, previous: known !== undefined && known.size < file.size ? known : undefined });
  }
  const fresh = await scanFiles(toRead, { threads: options.threads, onPlan: options.onScan });
  const skipped: string[] = [];
  let changed = false;
  fresh.forEach((scan, i) => {
    const file = toRead[i];
    if (file === undefined) return;
    if (scan === undefined) skipped.push(file.path);
    // Not kept anywhere: the file is tried again next run, and its failure said again.
    else if ("failed" in scan) failed.push({ path: file.path, reason: scan.failed });
    else {
      scans.push(scan);
      cached.set(scan.path, scan);
      changed = true;
    }
  });
  if (forget(cached, files, roots) || cache.damaged !== undefined) changed = true;
  if (dir !== undefined && changed) saveCache(dir, cached.values());
  const condensed = options.condensed;
  const ledger = condensed === undefined ? buildLedger(scans) : condense(mergeScans(scans), condensed.pricer, condensed.timeZone);
  const rebuilt = dir !== undefined && cache.damaged !== undefined ? { path: cacheFile(dir), why: cache.damaged } : undefined;
  return { ledger, files: files.length, read: toRead.length, missing, failed, skipped, cacheRebuilt: rebuilt };
}

/**
 * Drops from the cache the files that were under the folders just walked and are gone (deleted sessions), so
 * the cache does not grow with files that no longer exist. Returns whether it dropped any.
 */
function forget(cached: Map<string, FileScan>, found: readonly FoundFile[], roots: readonly string[]): boolean {
  // The common case, every cached path found as it is: nothing to resolve.
  const paths = new Set(found.map((file) => file.path));
  if (paths.size === cached.size && found.every((file) => cached.has(file.path))) return false;
  const present = new Set(found.map((file) => resolve(file.path)));
  let dropped = false;
  for (const path of cached.keys()) {
    const absolute = resolve(path);
    if (present.has(absolute) || !roots.some((root) => under(absolute, root))) continue;
    cached.delete(path);
    dropped = true;
  }
  return dropped;
}

/** Whether `path` is under the folder `root`, or a session of the store `root` names (`<database>#<session id>`). */
function under(path: string, root: string): boolean {
  return path.startsWith(root.endsWith(sep) ? root : root + sep) || path.startsWith(`${root}#`);
}
