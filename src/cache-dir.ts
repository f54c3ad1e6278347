import { join } from "node:path";

/**
 * agentstream's cache directory, $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream); undefined when neither
 * variable is set. It holds the usage scan cache and last result (src/usage/) and the short commands' compiled
 * code (src/cli/short-commands.ts): anything in it may be deleted at any time.
 */
export function cacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env.XDG_CACHE_HOME ?? (env.HOME === undefined ? undefined : join(env.HOME, ".cache"));
  return base === undefined ? undefined : join(base, "agentstream");
}
