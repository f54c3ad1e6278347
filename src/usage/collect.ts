/**
 * `sessions` and `usage` start here: find the files, take what the cache already knows, scan the rest (from
 * where an appended file was left), merge everything into one ledger, and refresh the cache.
 */
import { cacheDir, loadCache, saveCache } from "./cache.ts";
import { discoverDefault, discoverPaths, type FoundFile } from "./discover.ts";
import { buildLedger, type Ledger } from "./ledger.ts";
import { scanFiles } from "./scan-pool.ts";
import type { FileScan } from "./types.ts";

export interface CollectOptions {
  /** Files and folders named; empty: the agents' standard locations. */
  readonly paths: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** false: neither read nor write the cache (`--no-cache`). */
  readonly cache: boolean;
  /** Worker threads (default: the cores available, for large inputs). */
  readonly threads?: number | undefined;
}

export interface Collected {
  readonly ledger: Ledger;
  readonly files: number;
  /** Files read this time (the rest came from the cache unchanged). */
  readonly read: number;
  /** Paths named that do not exist, and files that could not be read. */
  readonly missing: readonly string[];
  readonly unreadable: readonly string[];
}

export async function collectUsage(options: CollectOptions): Promise<Collected> {
  const { files, missing } =
    options.paths.length === 0 ? { files: discoverDefault(options.env), missing: [] } : discoverPaths(options.paths);
  const dir = options.cache ? cacheDir(options.env) : undefined;
  const cached = loadCache(dir);
  const scans: FileScan[] = [];
  const toRead: (FoundFile & { previous: FileScan | undefined })[] = [];
  for (const file of files) {
    const known = cached.get(file.path);
    if (known !== undefined && known.size === file.size && known.mtimeMs === file.mtimeMs) scans.push(known);
    else
      toRead.push({ ...file, previous: known !== undefined && known.size < file.size && !file.path.endsWith(".json") ? known : undefined });
  }
  const fresh = await scanFiles(toRead, options.threads === undefined ? {} : { threads: options.threads });
  const unreadable: string[] = [];
  fresh.forEach((scan, i) => {
    if (scan === undefined) unreadable.push(toRead[i]?.path ?? "");
    else {
      scans.push(scan);
      cached.set(scan.path, scan);
    }
  });
  if (dir !== undefined && toRead.length > 0) saveCache(dir, cached.values());
  return { ledger: buildLedger(scans), files: files.length, read: toRead.length, missing, unreadable };
}
