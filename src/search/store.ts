/**
 * The index file: an SQLite database with an FTS5 table, in the cache folder `usage` uses. It is a cache: opened only
 * when it is a regular file that starts as a database does (no link followed, no wait on a FIFO), checked (its
 * schema version in `user_version`, its tables, `PRAGMA quick_check` while it is small enough for that to be
 * quick), and made again, said in one line, when any of that fails or SQLite later finds it damaged.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { olderVersion, removeStale } from "../usage/cache-dir.ts";

/** Changes whenever the schema or what is indexed does: an index of another version is made again. */
const SCHEMA_VERSION = 4;

/** The index as SQLite handles it (better-sqlite3's connection). */
export type Db = Database.Database;

const HEADER = "SQLite format 3\0";
/** Above this size the full page check is skipped at open (it reads every page); damage found later still rebuilds. */
const QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024;

const SCHEMA = `
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, agent TEXT NOT NULL,
  size INTEGER NOT NULL, mtime REAL NOT NULL, ino TEXT NOT NULL, dev TEXT NOT NULL);
CREATE TABLE sessions(id INTEGER PRIMARY KEY, file INTEGER NOT NULL, session_id TEXT, agent TEXT NOT NULL,
  project TEXT, model TEXT, start INTEGER, end INTEGER, status TEXT NOT NULL, first_doc INTEGER);
CREATE INDEX sessions_file ON sessions(file);
CREATE INDEX sessions_first_doc ON sessions(first_doc);
CREATE TABLE docs(id INTEGER PRIMARY KEY, session INTEGER NOT NULL, seq INTEGER NOT NULL, line INTEGER,
  time INTEGER, field TEXT NOT NULL, tool TEXT, text TEXT NOT NULL);
CREATE INDEX docs_session ON docs(session, seq);
CREATE INDEX docs_tool ON docs(tool COLLATE NOCASE);
CREATE TABLE touched(session INTEGER NOT NULL, seq INTEGER NOT NULL, path TEXT NOT NULL, reversed TEXT NOT NULL, tool TEXT);
CREATE INDEX touched_session ON touched(session);
CREATE INDEX touched_reversed ON touched(reversed);
CREATE VIRTUAL TABLE docs_fts USING fts5(text, tool, content='docs', content_rowid='id', tokenize='trigram');
CREATE TRIGGER docs_insert AFTER INSERT ON docs BEGIN
  INSERT INTO docs_fts(rowid, text, tool) VALUES (new.id, new.text, new.tool);
END;
CREATE TRIGGER docs_delete AFTER DELETE ON docs BEGIN
  INSERT INTO docs_fts(docs_fts, rowid, text, tool) VALUES ('delete', old.id, old.text, old.tool);
END;
`;
const TABLES = ["docs", "docs_fts", "files", "sessions", "touched"];

function indexFile(dir: string): string {
  return join(dir, `search-v${SCHEMA_VERSION}.sqlite`);
}

/** A path's characters in reverse order: `--file src/auth.ts` (a path's end) is then a range of an index. */
export function reversed(path: string): string {
  return [...path].reverse().join("");
}

/** Whether an error is SQLite saying the file is not a database, or a damaged one. */
export function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

/** An open index and where it is. */
export interface OpenedDb {
  readonly db: Db;
  readonly location: string;
}

/**
 * Opens the index in `dir` (made when absent or unusable: `onNotice` is told why), or an index in memory when `dir`
 * is undefined or nothing can be written there.
 */
export function openDb(dir: string | undefined, onNotice: (line: string) => void): OpenedDb {
  if (dir === undefined) return { db: prepare(new Database(":memory:")), location: ":memory:" };
  const path = indexFile(dir);
  const why = unusable(path);
  if (why !== undefined && why !== "absent") {
    onNotice(`agentstream: the search index ${path} could not be used (${why}): made again`);
    if (!remove(path)) {
      onNotice(`agentstream: cannot remove ${path}: the index is kept in memory for this run`);
      return { db: prepare(new Database(":memory:")), location: ":memory:" };
    }
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (why !== undefined)
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
    const db = new Database(path, { fileMustExist: true, timeout: 5000 });
    // Another process may have swapped the file between the check and the open: the same check again.
    const check = why === undefined ? checkSchema(db, path) : undefined;
    if (check !== undefined || !lstatSync(path).isFile()) {
      db.close();
      onNotice(`agentstream: the search index ${path} could not be used (${check ?? "replaced while opening"}): made again`);
      remove(path);
      return openDb(dir, onNotice);
    }
    removeStale(dir, (name) => olderVersion(name.replace(/\.sqlite$/, ".bin"), "search-v", SCHEMA_VERSION));
    return { db: why === undefined ? configure(db) : prepare(db), location: path };
  } catch (error) {
    if (isDamage(error)) {
      remove(path);
      onNotice(`agentstream: the search index ${path} could not be used (damaged): made again`);
      return openDb(dir, onNotice);
    }
    onNotice(
      `agentstream: cannot keep the search index in ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}): kept in memory for this run`,
    );
    return { db: prepare(new Database(":memory:")), location: ":memory:" };
  }
}

/** Why the file at `path` is not an index to open: `absent`, a link, not a regular file, not a database. */
function unusable(path: string): string | undefined {
  let fd: number;
  try {
    if (lstatSync(path).isSymbolicLink()) return "a symbolic link";
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? "absent" : code === "ELOOP" ? "a symbolic link" : `cannot be read (${code})`;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return "not a regular file";
    const head = Buffer.alloc(HEADER.length);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read < HEADER.length || head.toString("latin1") !== HEADER) return "not a database";
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Why an opened database is not our index: another schema version, missing tables, damaged pages. */
function checkSchema(db: Db, path: string): string | undefined {
  try {
    if (db.pragma("user_version", { simple: true }) !== SCHEMA_VERSION) return "another version";
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    if (!TABLES.every((name) => names.includes(name))) return "not a search index";
    if (lstatSync(path).size <= QUICK_CHECK_MAX_BYTES && db.pragma("quick_check", { simple: true }) !== "ok") return "damaged";
    return undefined;
  } catch (error) {
    if (isDamage(error)) return "damaged";
    throw error;
  }
}

/** A new index: the schema, then the settings. */
function prepare(db: Db): Db {
  configure(db);
  db.exec(SCHEMA);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return db;
}

function configure(db: Db): Db {
  // A cache: a crash may lose or damage it, and a damaged index is found and made again, so no fsync is waited for.
  db.pragma("journal_mode = DELETE");
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -16000");
  return db;
}

/** Removes the index and SQLite's files beside it; false when the index itself could not be removed. */
export function remove(path: string): boolean {
  for (const suffix of ["-journal", "-wal", "-shm"]) {
    try {
      unlinkSync(path + suffix);
    } catch {
      // Not there: the common case.
    }
  }
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}
