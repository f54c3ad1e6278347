import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * agentstream's cache directory, $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream); undefined when neither
 * variable is set. It holds the scan cache (cache.ts): anything in it may be deleted at any time.
 */
export function cacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env.XDG_CACHE_HOME ?? (env.HOME === undefined ? undefined : join(env.HOME, ".cache"));
  return base === undefined ? undefined : join(base, "agentstream");
}

/**
 * Deletes the files of `dir` that `isStale` names (a cache of an older layout, another build's code): one listing
 * of the folder, then a removal only of what is there. (`rmSync` loads Node's rimraf on every run, and
 * asks for each name whether it is there.) A file that cannot be removed stays; nothing throws.
 */
export function removeStale(dir: string, isStale: (name: string) => boolean): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!isStale(name)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/** Whether `name` is `<prefix><n>.json` or `<prefix><n>.bin` with n below `version`: a file of an older layout. */
export function olderVersion(name: string, prefix: string, version: number): boolean {
  if (!name.startsWith(prefix)) return false;
  const match = /^(\d+)\.(?:json|bin)$/.exec(name.slice(prefix.length));
  return match !== null && Number(match[1]) < version;
}
