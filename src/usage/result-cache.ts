/**
 * The last run's result, condensed (condense.ts: one row per owning file, model, day in the report's time zone
 * and kind of cost, each request priced on its own), for the next run at the same prices and in the same zone.
 * Over the same unchanged files (`usage` again, `sessions` after `usage`) it is the answer: no log is read and no
 * request merged. After some files changed it is where the update starts (update.ts): the rows of the files that
 * did not change are kept. Keyed by every file's path, size and mtime, the price table and the time zone.
 *
 * Stored in binary: the key line first, a short JSON header (counts, models, unreadable paths), then packed
 * columns (packed.ts): the strings (paths, session keys, ids and projects); each file's path, size, mtime, flags,
 * number of rows, session, place (start and end) and group in merge order; each session's facts and files; then the
 * rows as one Float64Array. Nothing is parsed per file or per session: loading makes the objects the report
 * uses and no others.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writevSync } from "node:fs";
import { join } from "node:path";
import type { FoundFile } from "./discover.ts";
import type { Condensed, CondensedFile } from "./condense.ts";
import { PACKED_ROW, PackedCharges, packCharges } from "./charge-list.ts";
import type { LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { Packer, type TextEncoding, Unpacker } from "./packed.ts";
import { textHash } from "./scanner.ts";
import type { SessionStatus, UsageAgent } from "./types.ts";

const VERSION = 6;
const MAGIC = "AGSURES6";

/** The JSON part of the header: what sizes the packed columns, and the short lists. */
interface StoredHeader {
  readonly duplicates: number;
  /** The files found that could not be read: they are among the files the result is for. */
  readonly unreadable: FoundFile[];
  readonly models: string[];
  readonly agents: UsageAgent[];
  readonly statuses: SessionStatus[];
  readonly files: number;
  readonly sessions: number;
  /** Every session's files, one after the other. */
  readonly sessionFiles: number;
  readonly rows: number;
  readonly strings: number;
  readonly text: { readonly bytes: number; readonly encoding: TextEncoding };
}

/** A stored result: the one for these very files (`exact`), or an earlier one at the same prices and zone. */
export interface LastResult {
  readonly condensed: Condensed;
  readonly unreadable: string[];
  readonly exact: boolean;
}

/**
 * What a result is kept for besides its files: the price table and the time zone of its days. A result of other
 * prices or another zone is of no use (each request is priced, and put on its day, when it is condensed).
 */
export function resultKey(pricer: Pricer, timeZone: string): string {
  return `${pricer.fingerprint}:${textHash(timeZone)}`;
}

function resultFile(dir: string): string {
  return join(dir, `usage-result-v${VERSION}.bin`);
}

/**
 * The last result kept, when it was made at the same prices and in the same zone (`resultKey`); `exact` when it
 * is for these very files: each found file's path, size and mtime is one of the result's (its files and the
 * ones it could not read), and there are as many. A result of another key or version, or one that cannot be
 * read, is undefined. Compared as they are, not by a hash of them: no two lists of files can pass for each other.
 */
export function loadLastResult(dir: string, files: readonly FoundFile[], key: string, timeZone: string): LastResult | undefined {
  try {
    let bytes: Uint8Array = readFileSync(resultFile(dir));
    if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const keyEnd = buffer.indexOf(0x0a);
    if (keyEnd === -1 || buffer.toString("utf8", 0, keyEnd) !== `${MAGIC}${key}`) return undefined;
    const headerAt = keyEnd + 1 + 4;
    const headerBytes = buffer.readUInt32LE(headerAt - 4);
    const header = JSON.parse(buffer.toString("utf8", headerAt, headerAt + headerBytes)) as StoredHeader;
    const columns = new Unpacker(buffer, Math.ceil((headerAt + headerBytes) / 8) * 8);
    const loaded = condensedOf(header, columns, timeZone);
    const unreadable = header.unreadable.map((file) => file.path);
    return { condensed: loaded.condensed, unreadable, exact: loaded.sameFiles(files, header.unreadable) };
  } catch {
    return undefined;
  }
}

/**
 * The condensed result from the packed columns, read in the order `saveResult` packed them, and whether it is for
 * the files found.
 */
function condensedOf(header: StoredHeader, columns: Unpacker, timeZone: string) {
  const strings = columns.strings(header.strings, header.text.bytes, header.text.encoding);
  const text = (index: number): string => strings[index] ?? "";
  const count = header.files;
  const [path, size, mtime, repeated, rowCounts, independent, session, start, end, group] = [
    columns.i32(count),
    columns.f64(count),
    columns.f64(count),
    columns.i32(count),
    columns.i32(count),
    columns.u8(count),
    columns.i32(count),
    columns.f64(count),
    columns.f64(count),
    columns.i32(count),
  ];
  const paths = Array.from(path, text);
  const sessionList = sessionsOf(header, columns, text, paths);
  // The rows stay numbers: a report reads them through one object (charge-list.ts), an update slices them by file.
  const charges = new PackedCharges({ rows: columns.f64(header.rows * PACKED_ROW), sessions: sessionList, models: header.models });
  const filesOf = (): CondensedFile[] => {
    const files: CondensedFile[] = new Array(count);
    for (let f = 0, first = 0; f < count; f++) {
      const rows = rowCounts[f] ?? 0;
      files[f] = {
        path: paths[f] ?? "",
        size: size[f] ?? 0,
        mtimeMs: mtime[f] ?? 0,
        session: sessionList[session[f] ?? 0]?.key ?? "",
        start: timeOrNull(start[f] ?? Number.NaN),
        end: timeOrNull(end[f] ?? Number.NaN),
        group: paths[group[f] ?? f] ?? "",
        independent: independent[f] === 1,
        repeated: repeated[f] ?? 0,
        rows: charges.slice(first, rows),
      };
      first += rows;
    }
    return files;
  };
  const sessions = new Map(sessionList.map((session) => [session.key, session]));
  let files: CondensedFile[] | undefined;
  const condensed: Condensed = {
    ledger: { charges, sessions, duplicates: header.duplicates, timeZone },
    // Made when first used: a run over unchanged files reports from the ledger alone (an update needs them).
    get files(): CondensedFile[] {
      files ??= filesOf();
      return files;
    },
  };
  const sameFiles = (found: readonly FoundFile[], unreadable: readonly FoundFile[]): boolean =>
    sameFileList(found, { paths, size, mtime }, unreadable);
  return { condensed, sameFiles };
}

/**
 * Whether the files found are the result's files (`kept`, by column) and its unreadable ones, as many of each path
 * (a folder named twice finds its files twice), each with the same size and mtime.
 */
function sameFileList(
  found: readonly FoundFile[],
  kept: { readonly paths: readonly string[]; readonly size: Float64Array; readonly mtime: Float64Array },
  unreadable: readonly FoundFile[],
): boolean {
  const count = kept.paths.length;
  if (found.length !== count + unreadable.length) return false;
  const index = new Map<string, number>();
  const left = new Int32Array(count + unreadable.length);
  const note = (path: string, at: number): void => {
    const first = index.get(path) ?? at;
    index.set(path, first);
    left[first] = (left[first] ?? 0) + 1;
  };
  kept.paths.forEach(note);
  for (const [u, file] of unreadable.entries()) note(file.path, count + u);
  return found.every((file) => {
    const at = index.get(file.path);
    if (at === undefined || (left[at] ?? 0) === 0) return false;
    left[at] = (left[at] ?? 0) - 1;
    const other = unreadable[at - count];
    return at < count
      ? kept.size[at] === file.size && kept.mtime[at] === file.mtimeMs
      : other?.size === file.size && other?.mtimeMs === file.mtimeMs;
  });
}

/** The sessions, in order; a session's file is an index in `paths`, or (negative) a string of its own. */
function sessionsOf(header: StoredHeader, columns: Unpacker, text: (index: number) => string, paths: readonly string[]): LedgerSession[] {
  const count = header.sessions;
  const [key, sessionId, project, agent, status, start, end, badLines, fileCounts] = [
    columns.i32(count),
    columns.i32(count),
    columns.i32(count),
    columns.u8(count),
    columns.u8(count),
    columns.f64(count),
    columns.f64(count),
    columns.i32(count),
    columns.i32(count),
  ];
  const sessionFiles = columns.i32(header.sessionFiles);
  const orNull = (index: number): string | null => (index < 0 ? null : text(index));
  const sessions: LedgerSession[] = new Array(count);
  for (let s = 0, first = 0; s < count; s++) {
    const files: string[] = new Array(fileCounts[s] ?? 0);
    for (let i = 0; i < files.length; i++) {
      const file = sessionFiles[first + i] ?? 0;
      files[i] = file >= 0 ? (paths[file] ?? "") : text(-file - 1);
    }
    first += files.length;
    sessions[s] = {
      key: text(key[s] ?? 0),
      agent: header.agents[agent[s] ?? 0] ?? "claude",
      sessionId: orNull(sessionId[s] ?? -1),
      project: orNull(project[s] ?? -1),
      start: timeOrNull(start[s] ?? Number.NaN),
      end: timeOrNull(end[s] ?? Number.NaN),
      status: header.statuses[status[s] ?? 0] ?? "unknown",
      files,
      badLines: badLines[s] ?? 0,
    };
  }
  return sessions;
}

/** Writes every chunk (a short write goes on from where it stopped). */
function writeAll(fd: number, chunks: readonly Uint8Array[]): void {
  let left = chunks.filter((chunk) => chunk.length > 0);
  while (left.length > 0) {
    let written = writevSync(fd, left);
    while (left.length > 0 && written >= (left[0]?.length ?? 0)) {
      written -= left[0]?.length ?? 0;
      left = left.slice(1);
    }
    if (written > 0 && left[0] !== undefined) left = [left[0].subarray(written), ...left.slice(1)];
  }
}

function timeOrNull(time: number): number | null {
  return Number.isNaN(time) ? null : time;
}

/** Keeps a condensed result for the next run (atomically; a failure to write changes nothing). */
export function saveResult(dir: string, key: string, condensed: Condensed, unreadable: readonly FoundFile[]): void {
  const { ledger, files } = condensed;
  const strings: string[] = [];
  const stringOf = (value: string): number => strings.push(value) - 1;
  const columns = new Packer();
  const sessionList = [...ledger.sessions.values()];
  const filePaths = files.map((file) => stringOf(file.path));
  const fileIndex = new Map(files.map((file, i) => [file.path, i]));
  const sessionColumns = packedSessions(sessionList, fileIndex, stringOf);
  const sessionIndex = new Map(sessionList.map((session, i) => [session.key, i]));
  const { rows, models } = packCharges(ledger.charges, sessionIndex);
  const text = columns.strings(strings);
  columns.i32(filePaths);
  columns.f64(files.map((file) => file.size));
  columns.f64(files.map((file) => file.mtimeMs));
  columns.i32(files.map((file) => file.repeated));
  columns.i32(files.map((file) => file.rows.length));
  columns.u8(files.map((file) => (file.independent ? 1 : 0)));
  columns.i32(files.map((file) => sessionIndex.get(file.session) ?? -1));
  columns.f64(files.map((file) => file.start ?? Number.NaN));
  columns.f64(files.map((file) => file.end ?? Number.NaN));
  columns.i32(files.map((file, i) => fileIndex.get(file.group) ?? i));
  sessionColumns.pack(columns);
  columns.f64(rows);
  const header: StoredHeader = {
    duplicates: ledger.duplicates,
    unreadable: unreadable.map(({ path, size, mtimeMs }) => ({ path, agent: undefined, size, mtimeMs })),
    models,
    agents: AGENTS,
    statuses: STATUSES,
    files: files.length,
    sessions: sessionList.length,
    sessionFiles: sessionColumns.files,
    rows: ledger.charges.length,
    strings: strings.length,
    text,
  };
  write(dir, key, header, columns);
}

const AGENTS: UsageAgent[] = ["claude", "codex", "gemini"];
const STATUSES: SessionStatus[] = ["completed", "error", "open", "unknown"];

/** Each session's facts as columns (`sessionsOf` reads them): its strings added with `stringOf`. */
function packedSessions(sessions: readonly LedgerSession[], fileIndex: ReadonlyMap<string, number>, stringOf: (value: string) => number) {
  const orNone = (value: string | null): number => (value === null ? -1 : stringOf(value));
  const key = sessions.map((session) => stringOf(session.key));
  const sessionId = sessions.map((session) => orNone(session.sessionId));
  const project = sessions.map((session) => orNone(session.project));
  const sessionFiles = sessions.flatMap((session) => session.files.map((path) => fileIndex.get(path) ?? -stringOf(path) - 1));
  return {
    files: sessionFiles.length,
    pack(columns: Packer): void {
      columns.i32(key);
      columns.i32(sessionId);
      columns.i32(project);
      columns.u8(sessions.map((session) => AGENTS.indexOf(session.agent)));
      columns.u8(sessions.map((session) => STATUSES.indexOf(session.status)));
      columns.f64(sessions.map((session) => session.start ?? Number.NaN));
      columns.f64(sessions.map((session) => session.end ?? Number.NaN));
      columns.i32(sessions.map((session) => session.badLines));
      columns.i32(sessions.map((session) => session.files.length));
      columns.i32(sessionFiles);
    },
  };
}

/** The key line, the header's length and JSON, then the columns 8-aligned, written in one call and renamed into place. */
function write(dir: string, key: string, header: StoredHeader, columns: Packer): void {
  const keyLine = `${MAGIC}${key}\n`;
  const json = JSON.stringify(header);
  const jsonAt = Buffer.byteLength(keyLine) + 4;
  const jsonBytes = Buffer.byteLength(json);
  const head = Buffer.alloc(Math.ceil((jsonAt + jsonBytes) / 8) * 8);
  head.write(keyLine, 0, "utf8");
  head.writeUInt32LE(jsonBytes, jsonAt - 4);
  head.write(json, jsonAt, "utf8");
  try {
    const target = resultFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    const fd = openSync(temporary, "w", 0o600);
    try {
      // The columns as they are, not copied into one buffer first (2 MB of fresh memory to fill).
      writeAll(fd, [head, ...columns.chunks()]);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
    for (let old = 1; old < VERSION; old++) {
      rmSync(join(dir, `usage-result-v${old}.json`), { force: true });
      rmSync(join(dir, `usage-result-v${old}.bin`), { force: true });
    }
  } catch {
    // Not kept: the next run uses the per-file cache.
  }
}
