/**
 * Keeping the index up to date with the logs: the files `sessions` finds (the same discovery, the same paths and
 * default folders), each compared with what the index saw (size, mtime, inode and device): an unchanged file is not
 * read, a new, grown or changed one is read again whole through the reader, a vanished one is removed.
 */
import { statSync } from "node:fs";
import { discoverDefault, discoverPaths, type FoundFile, namesStore } from "../usage/discover.ts";
import { readFailure } from "../usage/read-failure.ts";
import { splitRef } from "../usage/store.ts";
import { extractSessions, type ExtractedSession } from "./extract.ts";
import { type Db, reversed } from "./store.ts";
import type { UpdateReport } from "./types.ts";

interface FileRow {
  readonly id: number;
  readonly path: string;
  readonly size: number;
  readonly mtime: number;
  readonly ino: string;
  readonly dev: string;
}

/** The agent of a session: as discovery named it (`claude`), else its product name without `-code`/`-cli`. */
function agentOf(found: FoundFile, session: ExtractedSession | undefined): string {
  return found.agent ?? session?.agentProduct?.replace(/-(code|cli)$/, "") ?? "unknown";
}

/**
 * Brings the index up to date with the files under `paths` (none: the agents' standard locations) and marks them as
 * the scope that searches look in (the `scope` table).
 */
export function updateIndex(db: Db, paths: readonly string[] | undefined, env: Readonly<Record<string, string | undefined>>): UpdateReport {
  const started = performance.now();
  const discovered = paths === undefined || paths.length === 0 ? discoverDefault(env) : discoverPaths(paths);
  const known = new Map((db.prepare("SELECT id, path, size, mtime, ino, dev FROM files").all() as FileRow[]).map((row) => [row.path, row]));
  const writer = new IndexWriter(db);
  // Files are written in batches, one transaction each: a transaction per file spent more on the journal than on
  // the rows, and one for everything would lose all of a long first build to a Ctrl-C.
  let batchBytes = 0;
  db.exec("BEGIN");
  try {
    return finishUpdate(db, writer, started, discovered, known, (found) => {
      batchBytes += found.size;
      if (batchBytes < BATCH_BYTES) return;
      db.exec("COMMIT");
      db.exec("BEGIN");
      batchBytes = 0;
    });
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** Ids of texts per ms of their time (`docId`). */
export const ID_PER_MS = 1024;

const LAST_MS = Date.UTC(2200, 0, 1);

/** Bytes of logs read between two commits. */
const BATCH_BYTES = 32 * 1024 * 1024;

function finishUpdate(
  db: Db,
  writer: IndexWriter,
  started: number,
  discovered: ReturnType<typeof discoverPaths>,
  known: Map<string, FileRow>,
  afterFile: (found: FoundFile) => void,
): UpdateReport {
  const failed = [...discovered.failed];
  let added = 0;
  let changed = 0;
  let unchanged = 0;
  const inScope: number[] = [];
  for (const found of discovered.files) {
    const row = known.get(found.path);
    known.delete(found.path);
    let identity: { ino: string; dev: string };
    try {
      // A session kept in a store (`<database>#<id>`): the database's identity; its size and mtime are the store's stamp.
      const stat = statSync(fileOf(found.path), { bigint: true });
      identity = { ino: String(stat.ino), dev: String(stat.dev) };
    } catch (error) {
      failed.push({ path: found.path, reason: readFailure(error) });
      continue;
    }
    if (
      row !== undefined &&
      row.size === found.size &&
      row.mtime === found.mtimeMs &&
      row.ino === identity.ino &&
      row.dev === identity.dev
    ) {
      unchanged++;
      inScope.push(row.id);
      continue;
    }
    let sessions: ExtractedSession[];
    try {
      sessions = extractSessions(found.path);
    } catch (error) {
      failed.push({ path: found.path, reason: readFailure(error) });
      continue;
    }
    if (row === undefined) added++;
    else changed++;
    inScope.push(writer.replaceFile(row?.id, found, identity, sessions));
    afterFile(found);
  }
  // Indexed files this discovery did not find: gone from disk (removed), or outside these paths (kept for another search).
  let removed = 0;
  for (const row of known.values()) {
    if (exists(row.path)) continue;
    writer.removeFile(row.id);
    removed++;
  }
  writer.setScope(inScope);
  db.exec("COMMIT");
  const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
  return {
    added,
    changed,
    unchanged,
    removed,
    sessions: count("SELECT count(*) FROM sessions WHERE file IN (SELECT file FROM scope)"),
    documents: count("SELECT count(*) FROM docs WHERE session IN (SELECT id FROM sessions WHERE file IN (SELECT file FROM scope))"),
    missing: discovered.missing,
    failed,
    elapsedMs: performance.now() - started,
  };
}

/** The file a path names: itself, or the database of a store's session reference. */
function fileOf(path: string): string {
  return namesStore(path) ? (splitRef(path)?.path ?? path) : path;
}

function exists(path: string): boolean {
  try {
    return statSync(fileOf(path)).isFile();
  } catch {
    return false;
  }
}

/** The statements that change the index, prepared once per update. Each file is written in one transaction. */
class IndexWriter {
  private readonly db: Db;
  private readonly deleteDocs;
  private readonly deleteTouched;
  private readonly deleteSessions;
  private readonly deleteFile;
  private readonly insertFile;
  private readonly insertSession;
  private readonly insertDoc;
  private readonly insertTouched;
  private readonly setFirstDoc;
  private readonly lastIdFrom;

  constructor(db: Db) {
    this.db = db;
    this.deleteDocs = db.prepare("DELETE FROM docs WHERE session IN (SELECT id FROM sessions WHERE file = ?)");
    this.deleteTouched = db.prepare("DELETE FROM touched WHERE session IN (SELECT id FROM sessions WHERE file = ?)");
    this.deleteSessions = db.prepare("DELETE FROM sessions WHERE file = ?");
    this.deleteFile = db.prepare("DELETE FROM files WHERE id = ?");
    this.insertFile = db.prepare("INSERT INTO files(path, agent, size, mtime, ino, dev) VALUES (?, ?, ?, ?, ?, ?)");
    this.insertSession = db.prepare(
      "INSERT INTO sessions(file, session_id, agent, project, model, start, end, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertDoc = db.prepare("INSERT INTO docs(id, session, seq, line, time, field, tool, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    this.lastIdFrom = db.prepare("SELECT max(id) FROM docs WHERE id >= ? AND id < ?").pluck();
    this.insertTouched = db.prepare("INSERT INTO touched(session, seq, path, reversed, tool) VALUES (?, ?, ?, ?, ?)");
    this.setFirstDoc = db.prepare("UPDATE sessions SET first_doc = ? WHERE id = ?");
  }

  private clear(fileId: number): void {
    this.deleteDocs.run(fileId);
    this.deleteTouched.run(fileId);
    this.deleteSessions.run(fileId);
  }

  removeFile(fileId: number): void {
    this.db.transaction(() => {
      this.clear(fileId);
      this.deleteFile.run(fileId);
    })();
  }

  /** Replaces what the index holds of one file (`fileId`: its row, when it had one) by its sessions; returns its id. */
  replaceFile(
    fileId: number | undefined,
    found: FoundFile,
    identity: { ino: string; dev: string },
    sessions: readonly ExtractedSession[],
  ): number {
    return this.db.transaction(() => {
      if (fileId !== undefined) {
        this.clear(fileId);
        this.deleteFile.run(fileId);
      }
      const agent = agentOf(found, sessions[0]);
      const id = Number(this.insertFile.run(found.path, agent, found.size, found.mtimeMs, identity.ino, identity.dev).lastInsertRowid);
      for (const session of sessions) {
        const { sessionId, project, model, start, end, status } = session;
        const sessionRow = Number(
          this.insertSession.run(id, sessionId, agentOf(found, session), project, model, start, end, status).lastInsertRowid,
        );
        // The session's first prompt (else its first text): its hit when only facets are asked.
        let first: number | undefined;
        let firstIsPrompt = false;
        for (const doc of session.docs) {
          const time = doc.time ?? start;
          const docId = this.docId(time);
          this.insertDoc.run(docId, sessionRow, doc.seq, doc.line, time, doc.field, doc.tool, doc.text);
          if (first === undefined || (!firstIsPrompt && doc.field === "prompt")) {
            first = docId;
            firstIsPrompt = doc.field === "prompt";
          }
        }
        if (first !== undefined) this.setFirstDoc.run(first, sessionRow);
        for (const file of session.touched) this.insertTouched.run(sessionRow, file.seq, file.path, reversed(file.path), file.tool);
      }
      return id;
    })();
  }

  /**
   * A text's id, in the order of its time: its ms × 1024, plus one for each text already there within the same
   * ms (past 1024 of them, the next ms's ids). So the FTS index hands out matches newest first by descending rowid, and
   * a search stops at its page instead of sorting every match; a time range is a rowid range. No time: from 0.
   */
  private docId(time: number | null): number {
    // Past year 2200 (a wrong clock) times are held there: the ids stay exact integers (below 2^53).
    const base = Math.min(Math.max(0, time ?? 0), LAST_MS) * ID_PER_MS;
    const last = this.lastIdFrom.get(base, base + ID_PER_MS * 1024) as number | null;
    return last === null ? base : last + 1;
  }

  /** The files this update found: searches look only in them. */
  setScope(ids: readonly number[]): void {
    this.db.exec("CREATE TEMP TABLE IF NOT EXISTS scope(file INTEGER PRIMARY KEY)");
    const insert = this.db.prepare("INSERT OR IGNORE INTO scope(file) VALUES (?)");
    this.db.transaction(() => {
      this.db.exec("DELETE FROM scope");
      for (const id of ids) insert.run(id);
    })();
  }
}
