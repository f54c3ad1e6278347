/**
 * Session stores whose session is not one line-oriented file: rows of an SQLite database (OpenCode's
 * `opencode.db`, Cursor CLI's `store.db`) or a JSON document per session (Amp's threads). A store lists its
 * sessions, each under a path-like reference (`<database>#<session id>`, or the session's own file), and reads a
 * session as lines of its own session dialect (src/agents/<agent>/session.ts): from there on, `usage` scans
 * those lines with the source's line scanner and `html`/`render`/`summary` read them through the pipeline as
 * they read a file (docs/usage.md "A new source").
 *
 * Stores are opened read-only (SQLite: `readonly`, `fileMustExist`): an agent's store is never written to.
 */
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import { readFailure } from "./read-failure.ts";

/**
 * better-sqlite3 is required when a database is first opened, not imported: every reading command imports the
 * stores (to tell a store's path from a file's) and nearly all read plain files, which would pay for loading the
 * package's modules at each start.
 */
const requireFromHere = createRequire(import.meta.url);

/** One session a store holds: its reference (what the commands accept as a path) and its stamp for the scan cache. */
interface StoredSession {
  readonly ref: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** A store's sessions, or why it could not be read (`not an SQLite database`). */
export type StoreListing = { readonly sessions: StoredSession[] } | { readonly failed: string };

/** A session's lines in its session dialect, or why it could not be read. */
export type StoreLines = { readonly lines: string[] } | { readonly failed: string };

/** How a source reads sessions out of a store (UsageSource.store). */
export interface SessionStore {
  /** How many folders below a standard location its stores may be (Cursor: 2), at most: the folders are not walked deeper. */
  readonly depth: number;
  /** Whether the file at `path` is such a store (a database named on the command line, or met in a folder). */
  isStore(path: string): boolean;
  /** Every session of the store at `path`. */
  list(path: string): StoreListing;
  /** One session's lines (without LF): `ref` as `list` gave it. */
  read(ref: string): StoreLines;
  /** The size and mtime `list` gives the session now (what the scan cache compares); undefined when it is gone. */
  stamp(ref: string): { size: number; mtimeMs: number } | undefined;
}

/** The separator between a database's path and a session id in a reference. */
const REF_MARK = "#";

export function storeRef(path: string, sessionId: string): string {
  return `${path}${REF_MARK}${sessionId}`;
}

/** A reference split into the store's path and the session id; undefined when `ref` names no session in a store. */
export function splitRef(ref: string): { readonly path: string; readonly sessionId: string } | undefined {
  const at = ref.lastIndexOf(REF_MARK);
  if (at <= 0 || at === ref.length - 1) return undefined;
  const sessionId = ref.slice(at + 1);
  // A session id holds no separator: `a#b/c` is a file in a folder named `a#b`.
  return /[\\/]/.test(sessionId) ? undefined : { path: ref.slice(0, at), sessionId };
}

/**
 * A database's stamp: its size and mtime with its write-ahead log's (`-wal`), so that a write still in the log
 * (not yet checkpointed into the database file) makes every session of it read again.
 */
export function databaseStamp(path: string): { size: number; mtimeMs: number } | undefined {
  let main: ReturnType<typeof statSync>;
  try {
    main = statSync(path);
  } catch {
    return undefined;
  }
  let size = main.size;
  let mtimeMs = main.mtimeMs;
  try {
    const wal = statSync(`${path}-wal`);
    size += wal.size;
    mtimeMs = Math.max(mtimeMs, wal.mtimeMs);
  } catch {
    // No log: the database is all there is.
  }
  return { size, mtimeMs };
}

/** A read-only connection to an agent's database, or why it could not be opened. */
type Opened = { readonly db: Database.Database } | { readonly failed: string };

/** How long a read waits on a database another process holds locked before it is said to be busy. */
const BUSY_TIMEOUT_MS = 2000;

/** Opens an agent's database read-only (never created, never written), or says why it could not. */
function openDatabase(path: string): Opened {
  const SqliteDatabase = requireFromHere("better-sqlite3") as typeof Database;
  try {
    const db = new SqliteDatabase(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    return { db };
  } catch (error) {
    return { failed: databaseFailure(error) };
  }
}

/** Runs `read` on the database at `path` (opened read-only, closed after), turning any failure into words. */
export function withDatabase<T>(path: string, read: (db: Database.Database) => T): T | { readonly failed: string } {
  const opened = openDatabase(path);
  if ("failed" in opened) return opened;
  try {
    return read(opened.db);
  } catch (error) {
    return { failed: databaseFailure(error) };
  } finally {
    opened.db.close();
  }
}

/** Why a database could not be read, in words: SQLite's codes for a damaged, locked or foreign file, else the system's. */
function databaseFailure(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (code) {
    case "SQLITE_NOTADB":
      return "not an SQLite database";
    case "SQLITE_CORRUPT":
      return "a damaged SQLite database";
    case "SQLITE_BUSY":
    case "SQLITE_LOCKED":
      return "the database is locked by another process";
    case "SQLITE_CANTOPEN":
      return "the database cannot be opened";
    case "SQLITE_ERROR":
      // A table or column the reader expects is not there: another layout.
      return `not a store of the expected layout (${error instanceof Error ? error.message : String(error)})`;
    default:
      return typeof code === "string" && code.startsWith("SQLITE_") ? `SQLite: ${code}` : readFailure(error);
  }
}
