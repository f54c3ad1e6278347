/**
 * Where session logs are: the agents' standard locations that exist on this machine, or the files and folders
 * named on the command line (walked recursively).
 */
import { lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readFailure } from "./read-failure.ts";
import { agentByName, sourceOf, USAGE_SOURCES } from "./sources.ts";
import type { UsageSource } from "./scanner.ts";
import { splitRef, type StoreLines } from "./store.ts";
import type { UsageAgent } from "./types.ts";

/** A session file found, with what its name says about its agent (undefined: read its first line). */
export interface FoundFile {
  readonly path: string;
  readonly agent: UsageAgent | undefined;
  readonly size: number;
  readonly mtimeMs: number;
}

/** A path that was to be read and could not be, and why (`permission denied`). */
export interface ReadFailure {
  readonly path: string;
  readonly reason: string;
}

/** What finding the files gave: the files, the paths named that do not exist, what could not be read. */
export interface Discovered {
  readonly files: FoundFile[];
  readonly missing: string[];
  readonly failed: ReadFailure[];
}

/** A standard location: the folder and the agent whose logs it holds. */
interface Location {
  readonly agent: UsageAgent;
  readonly dir: string;
}

/** The text `--help` prints about the default locations. */
export const DEFAULT_LOCATIONS_HELP = `Default locations (those that exist): ${USAGE_SOURCES.map((source) => source.help).join(";\n")}.`;

/** The standard locations for this environment (whether or not they exist). */
function defaultLocations(env: Readonly<Record<string, string | undefined>>): Location[] {
  const home = env.HOME ?? env.USERPROFILE ?? "";
  return USAGE_SOURCES.flatMap((source) => source.folders(env, home).map((dir) => ({ agent: source.agent, dir })));
}

/** The folders of the default locations, for the cache to forget the files that left them. */
export function defaultRoots(env: Readonly<Record<string, string | undefined>>): string[] {
  return defaultLocations(env).map((location) => location.dir);
}

/** Every session file under the default locations that exist (each folder once), and what under them could not be read. */
export function discoverDefault(env: Readonly<Record<string, string | undefined>>): Discovered {
  const seen = new Set<string>();
  const out: FoundFile[] = [];
  const failed: ReadFailure[] = [];
  for (const location of defaultLocations(env)) {
    if (seen.has(location.dir)) continue;
    const source = sourceOf(location.agent);
    if (source?.store !== undefined) {
      seen.add(location.dir);
      listStores(location.dir, source, out, failed);
      continue;
    }
    if (!isDirectory(location.dir)) continue;
    seen.add(location.dir);
    walk(
      location.dir,
      (path, size, mtimeMs) => {
        const agent = agentByName(path) ?? location.agent;
        if (agent === location.agent && sourceOf(agent)?.isLog(path) === true) out.push({ path, agent, size, mtimeMs });
      },
      (failure) => failed.push(failure),
    );
  }
  return { files: out, missing: [], failed };
}

/**
 * The files under the paths named: a file as it is (its agent read from its first line unless its name says),
 * a folder walked for `.jsonl` files (and Gemini `.json` chats). Paths that do not exist are returned apart.
 */
export function discoverPaths(paths: readonly string[]): Discovered {
  const files: FoundFile[] = [];
  const missing: string[] = [];
  const failed: ReadFailure[] = [];
  for (const path of paths) {
    const ref = storeSession(path);
    if (ref !== undefined) {
      files.push(ref);
      continue;
    }
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !isLink(path)) missing.push(path);
      else failed.push({ path, reason: linkFailure(path) ?? readFailure(error) });
      continue;
    }
    const store = storeSource(path);
    if (stats.isFile() && store !== undefined) listStore(path, store, files, failed);
    else if (stats.isFile()) files.push({ path, agent: agentByName(path), size: stats.size, mtimeMs: stats.mtimeMs });
    else if (stats.isDirectory())
      walk(
        path,
        (file, size, mtimeMs) => {
          const inStore = storeSource(file);
          if (inStore !== undefined) {
            listStore(file, inStore, files, failed);
            return;
          }
          const agent = agentByName(file);
          // A source that reads whole documents (Gemini's `.json` chats) names its own files.
          if (file.endsWith(".jsonl") || (agent !== undefined && sourceOf(agent)?.scanDocument !== undefined))
            files.push({ path: file, agent, size, mtimeMs });
        },
        (failure) => failed.push(failure),
      );
    else failed.push({ path, reason: "not a file or folder" });
  }
  return { files, missing, failed };
}

/** The source whose store a file is (an `opencode.db`, a Cursor `store.db`), else undefined. */
function storeSource(path: string): UsageSource | undefined {
  return USAGE_SOURCES.find((source) => source.store?.isStore(path) === true);
}

/** Each session of the store at `path`, as a file found under its reference; a store that cannot be read, as a failure. */
function listStore(path: string, source: UsageSource, out: FoundFile[], failed: ReadFailure[]): void {
  const listing = source.store?.list(path);
  if (listing === undefined) return;
  if ("failed" in listing) failed.push({ path, reason: listing.failed });
  else
    for (const session of listing.sessions)
      out.push({ path: session.ref, agent: source.agent, size: session.size, mtimeMs: session.mtimeMs });
}

/**
 * The stores at a standard location of a source that keeps one: the location itself when it is a file (a database
 * named by its environment variable), else the stores in the folder down to the store's depth (not further: OpenCode's
 * data folder holds its snapshots too). Links to folders are not followed.
 */
function listStores(location: string, source: UsageSource, out: FoundFile[], failed: ReadFailure[]): void {
  const store = source.store;
  if (store === undefined) return;
  try {
    if (statSync(location).isFile()) {
      listStore(location, source, out, failed);
      return;
    }
  } catch {
    return;
  }
  let level: string[] = [location];
  for (let depth = 0; depth <= store.depth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") failed.push({ path: dir, reason: readFailure(error) });
        continue;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) next.push(path);
        else if (store.isStore(path) && isFile(path)) listStore(path, source, out, failed);
      }
    }
    level = next;
  }
}

/** A session named by its reference (`<database>#<session id>`) in a store that is there; undefined when `path` is not one. */
function storeSession(path: string): FoundFile | undefined {
  const ref = splitRef(path);
  if (ref === undefined) return undefined;
  const source = storeSource(ref.path);
  if (source === undefined || !isFile(ref.path)) return undefined;
  const listing = source.store?.list(ref.path);
  const found = listing !== undefined && "sessions" in listing ? listing.sessions.find((session) => session.ref === path) : undefined;
  // A session not (or no longer) in the store is read anyway: its read says why it cannot be.
  const stamp = found ?? { size: 0, mtimeMs: 0 };
  return { path, agent: source.agent, size: stamp.size, mtimeMs: stamp.mtimeMs };
}

/** Whether a path names a store or a session in one (by its name alone: nothing is opened). */
export function namesStore(path: string): boolean {
  return storeSource(splitRef(path)?.path ?? path) !== undefined;
}

/**
 * What a reading command (`html`, `render`, `summary`) reads for a path that names a store or one of its sessions:
 * the session's lines in its session dialect, or every session's one after the other (a database named whole);
 * undefined when the path is no store's.
 */
export function storeInput(path: string): StoreLines | undefined {
  const ref = splitRef(path);
  const store = storeSource(ref?.path ?? path)?.store;
  if (store === undefined) return undefined;
  if (ref !== undefined && isFile(ref.path)) return store.read(path);
  if (!isFile(path)) return undefined;
  const listing = store.list(path);
  if ("failed" in listing) return listing;
  const lines: string[] = [];
  for (const session of listing.sessions) {
    const read = store.read(session.ref);
    if ("failed" in read) return { failed: `${session.ref}: ${read.failed}` };
    lines.push(...read.lines);
  }
  return { lines };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** "a symbolic link to nothing" when `path` is a link whose target is gone; undefined otherwise. */
function linkFailure(path: string): string | undefined {
  return isLink(path) ? "a symbolic link to nothing" : undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Walks a folder (symbolic links to folders are not followed: no loops), in name order, calling `onFile`. Paths
 * are made as `join(folder, name)` makes them (the caches are keyed by them), with one `join` per folder, not per
 * file: on thousands of files it cost more than their stat. A folder that cannot be listed, and a link to nothing,
 * go to `onFailure`: the totals would be short of them, so they are said, never skipped quietly.
 */
function walk(dir: string, onFile: (path: string, size: number, mtimeMs: number) => void, onFailure: (failure: ReadFailure) => void): void {
  const pending = [dir];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    // What join(next, name) puts before any name (a name holds no separator and is never "." or "..").
    const prefix = join(next, "_").slice(0, -1);
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(next, { withFileTypes: true });
    } catch (error) {
      // A folder removed while walking is not there: nothing to count.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") onFailure({ path: next, reason: readFailure(error) });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const entry of entries) {
      const path = prefix + entry.name;
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() || entry.isSymbolicLink()) {
        try {
          const stats = statSync(path);
          if (stats.isFile()) onFile(path, stats.size, stats.mtimeMs);
        } catch (error) {
          // A file removed while walking is not there, nothing to count; a link to nothing may be a log moved away.
          const failure = entry.isSymbolicLink() && /\.jsonl?$/.test(path) ? linkFailure(path) : undefined;
          if (failure !== undefined || (error as NodeJS.ErrnoException).code !== "ENOENT") {
            onFailure({ path, reason: failure ?? readFailure(error) });
          }
        }
      }
    }
  }
}
