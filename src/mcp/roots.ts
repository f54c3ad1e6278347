/**
 * What the MCP server may read: the session stores (the agents' standard locations, as `sessions` finds them) or
 * the files and folders named on its command line, and nothing else. Every path a client passes is resolved
 * (`realpath`: `..`, symbolic links) and must lie inside one of them; a session file in a store that is a symbolic
 * link leading out is left out of every answer.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";
import type { Collected } from "../usage/collect.ts";
import { defaultRoots } from "../usage/discover.ts";
import type { LedgerSession } from "../usage/ledger.ts";

/** A path a client asked for that the server does not read, with what to do instead. */
export class RefusedPath extends Error {
  override readonly name = "RefusedPath";
}

export interface SessionRoots {
  /** The paths to read, as `sessions` takes them (empty: the standard locations). */
  readonly paths: readonly string[];
  /** The real paths of the stores or named paths that exist: folders, or single files. */
  readonly real: readonly string[];
  /** The real path of `path` (relative to the server's folder) when it lies inside a root; else throws `RefusedPath`. */
  check(path: string): string;
  /** Whether a path found under the roots really is inside them (a link leading out is not). */
  holds(path: string): boolean;
}

/**
 * The roots of a server started with `paths` (empty: the standard locations in `env` that exist). A named path
 * that does not exist throws: a server told to read it would otherwise answer, wrongly, that there is nothing.
 */
export function sessionRoots(paths: readonly string[], env: Readonly<Record<string, string | undefined>>): SessionRoots {
  const named = paths.length > 0;
  const real: string[] = [];
  for (const path of named ? paths : defaultRoots(env)) {
    let found: string;
    try {
      found = realpathSync(path);
    } catch (error) {
      if (named)
        throw new RefusedPath(`${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : String(error)}`);
      continue; // a standard location this machine does not have
    }
    if (!real.includes(found)) real.push(found);
  }
  const inside = (path: string): boolean => real.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep));
  const described = real.length === 0 ? "none exists here" : real.join(", ");
  return {
    paths,
    real,
    check(path) {
      const absolute = isAbsolute(path) ? path : resolve(path);
      let found: string;
      try {
        found = realpathSync(absolute);
      } catch {
        throw new RefusedPath(`no such session file: ${path}. Pass a session id or a path that list_sessions gave.`);
      }
      if (!inside(found))
        throw new RefusedPath(
          `${path} is outside the session stores this server reads (${described}); symbolic links leading out are refused too. Pass a session id or a path that list_sessions gave.`,
        );
      if (!statSync(found).isFile()) throw new RefusedPath(`${path} is a folder, not a session file. Pass a path that list_sessions gave.`);
      return found;
    },
    holds(path) {
      try {
        return inside(realpathSync(path));
      } catch {
        return false;
      }
    },
  };
}

/** What was collected, without the sessions that have a file outside the roots (a link leading out). */
export function confined(collected: Collected, roots: SessionRoots): Collected {
  const kept = new Map<string, LedgerSession>();
  let dropped = 0;
  for (const [key, session] of collected.ledger.sessions) {
    if (session.files.every((file) => roots.holds(file))) kept.set(key, session);
    else dropped += session.files.length;
  }
  if (dropped === 0) return collected;
  const charges = collected.ledger.charges.filter((charge) => kept.has(charge.session));
  return { ...collected, files: collected.files - dropped, ledger: { ...collected.ledger, sessions: kept, charges } };
}
