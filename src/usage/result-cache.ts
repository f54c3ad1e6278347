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
import { readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { olderVersion, removeStale } from "./cache-dir.ts";
import type { FoundFile } from "./discover.ts";
import type { Condensed, CondensedFile } from "./condense.ts";
import { PACKED_ROW, PackedCharges, packChargeChunks } from "./charge-list.ts";
import type { LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { type PackedStrings, Packer, type TextEncoding, Unpacker, writeChunks } from "./packed.ts";
import { textHash } from "./scanner.ts";
import type { SessionStatus, UsageAgent } from "./types.ts";

const VERSION = 7;
const MAGIC = "AGSURES6";

/** The JSON part of the header: what sizes the packed columns, and the short lists. */
interface StoredHeader {
  readonly duplicates: number;
  /** The files found that are not session logs: they are among the files the result is for. */
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
  /** The columns it was read from: an update of it is saved by copying its kept files and sessions from them. */
  readonly stored: StoredResult;
}

/**
 * A loaded result's columns as they were read (views of the file's bytes), and which of its files and sessions a
 * loaded object is. The objects are never changed once loaded (an update makes new ones for what changed).
 */
interface StoredResult {
  readonly agents: readonly UsageAgent[];
  readonly statuses: readonly SessionStatus[];
  readonly strings: PackedStrings;
  readonly files: FileColumns;
  readonly sessions: SessionColumns;
  /** The place of each loaded file (made when the files are). */
  readonly fileAt: Map<CondensedFile, number>;
}

interface FileColumns {
  readonly path: Int32Array;
  readonly size: Float64Array;
  readonly mtime: Float64Array;
  readonly repeated: Int32Array;
  readonly rowCounts: Int32Array;
  readonly independent: Uint8Array;
  readonly session: Int32Array;
  readonly start: Float64Array;
  readonly end: Float64Array;
  readonly group: Int32Array;
}

interface SessionColumns {
  readonly key: Int32Array;
  readonly sessionId: Int32Array;
  readonly project: Int32Array;
  readonly agent: Uint8Array;
  readonly status: Uint8Array;
  readonly start: Float64Array;
  readonly end: Float64Array;
  readonly badLines: Int32Array;
  readonly fileCounts: Int32Array;
  /** Each session's files, one after the other: a file's place, or (negative) a string of its own. */
  readonly files: Int32Array;
  /** Where each session's files start in `files` (not stored: summed when loaded). */
  readonly firstFile: Int32Array;
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
    return { condensed: loaded.condensed, unreadable, exact: loaded.sameFiles(files, header.unreadable), stored: loaded.stored };
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
  const text = (index: number): string => strings.values[index] ?? "";
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
  const stored = { path, size, mtime, repeated, rowCounts, independent, session, start, end, group };
  const paths = Array.from(path, text);
  const { sessions: sessionList, columns: sessionColumns } = sessionsOf(header, columns, text, paths);
  // The rows stay numbers: a report reads them through one object (charge-list.ts), an update slices them by file.
  const charges = new PackedCharges({ rows: columns.f64(header.rows * PACKED_ROW), sessions: sessionList, models: header.models });
  const fileAt = new Map<CondensedFile, number>();
  const filesOf = (): CondensedFile[] => {
    const files: CondensedFile[] = new Array(count);
    for (let f = 0, first = 0; f < count; f++) {
      const rows = rowCounts[f] ?? 0;
      const file: CondensedFile = {
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
      files[f] = file;
      fileAt.set(file, f);
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
  const result: StoredResult = {
    agents: header.agents,
    statuses: header.statuses,
    strings,
    files: stored,
    sessions: sessionColumns,
    fileAt,
  };
  const sameFiles = (found: readonly FoundFile[], unreadable: readonly FoundFile[]): boolean =>
    sameFileList(found, { paths, size, mtime }, unreadable);
  return { condensed, sameFiles, stored: result };
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
function sessionsOf(header: StoredHeader, columns: Unpacker, text: (index: number) => string, paths: readonly string[]) {
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
  const firstFile = new Int32Array(count);
  const orNull = (index: number): string | null => (index < 0 ? null : text(index));
  const sessions: LedgerSession[] = new Array(count);
  for (let s = 0, first = 0; s < count; s++) {
    const files: string[] = new Array(fileCounts[s] ?? 0);
    for (let i = 0; i < files.length; i++) {
      const file = sessionFiles[first + i] ?? 0;
      files[i] = file >= 0 ? (paths[file] ?? "") : text(-file - 1);
    }
    firstFile[s] = first;
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
  const stored: SessionColumns = {
    key,
    sessionId,
    project,
    agent,
    status,
    start,
    end,
    badLines,
    fileCounts,
    files: sessionFiles,
    firstFile,
  };
  return { sessions, columns: stored };
}

function timeOrNull(time: number): number | null {
  return Number.isNaN(time) ? null : time;
}

/**
 * Keeps a condensed result for the next run (atomically; a failure to write changes nothing). `from`: the loaded
 * result this one is an update of. Its files and sessions that are still the loaded objects are copied from the
 * columns they were read from, and its strings are kept as they were, at the same places, the new ones after them:
 * an update is saved without packing again what it kept. A result whose strings are mostly no longer used (many
 * files gone) is packed afresh.
 */
export function saveResult(dir: string, key: string, condensed: Condensed, unreadable: readonly FoundFile[], from?: LastResult): void {
  const { ledger, files } = condensed;
  const sessionList = [...ledger.sessions.values()];
  const stored = from === undefined || !worthKeeping(from.stored, files.length, sessionList.length) ? undefined : from.stored;
  const strings = new StringList(stored?.strings);
  const columns = new Packer();
  const sessionIndex = new Map(sessionList.map((session, i) => [session.key, i]));
  const fileColumns = packedFiles(files, sessionIndex, strings, stored);
  const loaded = stored === undefined || from === undefined ? undefined : { stored, sessions: from.condensed.ledger.sessions };
  const sessionColumns = packedSessions(sessionList, fileColumns, strings, loaded);
  const { chunks: rows, models } = packChargeChunks(ledger.charges, sessionIndex);
  const text = strings.pack(columns);
  const f = fileColumns.columns;
  for (const column of [f.path, f.size, f.mtime, f.repeated, f.rowCounts, f.independent, f.session, f.start, f.end, f.group]) {
    columns.add(column);
  }
  sessionColumns.pack(columns);
  columns.run(rows);
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

/**
 * Whether an update is saved from the loaded result's columns: its agents and statuses are listed as this version
 * lists them, and at most about half its strings are no longer used (a file or session gone leaves its strings).
 */
function worthKeeping(stored: StoredResult, files: number, sessions: number): boolean {
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  return (
    same(stored.agents, AGENTS) && same(stored.statuses, STATUSES) && stored.strings.values.length <= 2 * (files + 3 * sessions) + 1024
  );
}

/** The strings a result refers to by place: a loaded result's, at their places, then the ones added. */
class StringList {
  private readonly loaded: PackedStrings | undefined;
  private readonly added: string[] = [];

  constructor(loaded: PackedStrings | undefined) {
    this.loaded = loaded;
  }

  get length(): number {
    return (this.loaded?.values.length ?? 0) + this.added.length;
  }

  add(value: string): number {
    return (this.loaded?.values.length ?? 0) + this.added.push(value) - 1;
  }

  /** The loaded string at `place` when it is `value`, else `value` added. */
  addOr(place: number | undefined, value: string): number {
    return place !== undefined && place >= 0 && this.loaded?.values[place] === value ? place : this.add(value);
  }

  /** The loaded strings' text as it was read, then the added ones (all encoded again when theirs cannot follow it). */
  pack(columns: Packer): { bytes: number; encoding: TextEncoding } {
    const loaded = this.loaded;
    if (loaded === undefined) return columns.strings(this.added);
    return columns.stringsAfter(loaded, this.added) ?? columns.strings([...loaded.values, ...this.added]);
  }
}

/** Each file's columns (`condensedOf` reads them): a loaded file's copied from where it was stored. */
function packedFiles(
  files: readonly CondensedFile[],
  sessionIndex: ReadonlyMap<string, number>,
  strings: StringList,
  stored: StoredResult | undefined,
) {
  const n = files.length;
  const out: FileColumns = {
    path: new Int32Array(n),
    size: new Float64Array(n),
    mtime: new Float64Array(n),
    repeated: new Int32Array(n),
    rowCounts: new Int32Array(n),
    independent: new Uint8Array(n),
    session: new Int32Array(n),
    start: new Float64Array(n),
    end: new Float64Array(n),
    group: new Int32Array(n),
  };
  // Where each loaded file is now, and where each session was (-1: not kept as it was; no file of it kept).
  const placeOfStored = new Int32Array(stored?.files.path.length ?? 0).fill(-1);
  const sessionWas = new Int32Array(stored === undefined ? 0 : sessionIndex.size).fill(-1);
  let byPath: Map<string, number> | undefined;
  const placeOf = (path: string): number => {
    byPath ??= new Map(files.map((file, i) => [file.path, i]));
    return byPath.get(path) ?? -1;
  };
  for (let i = 0; i < n; i++) {
    const file = files[i] as CondensedFile;
    const at = stored?.fileAt.get(file);
    out.session[i] = sessionIndex.get(file.session) ?? -1;
    let group = -1;
    if (stored !== undefined && at !== undefined) {
      copyFile(out, i, stored.files, at);
      placeOfStored[at] = i;
      sessionWas[out.session[i] ?? 0] = stored.files.session[at] ?? -1;
      group = placeOfStored[stored.files.group[at] ?? at] ?? -1;
    } else {
      // Added again even when the loaded strings hold it (no lookup by path): `worthKeeping` bounds what is left unused.
      out.path[i] = strings.add(file.path);
      out.size[i] = file.size;
      out.mtime[i] = file.mtimeMs;
      out.repeated[i] = file.repeated;
      out.rowCounts[i] = file.rows.length;
      out.independent[i] = file.independent ? 1 : 0;
      out.start[i] = file.start ?? Number.NaN;
      out.end[i] = file.end ?? Number.NaN;
      // An update's paths are all different (update.ts): a file of its own group is its own place.
      if (stored !== undefined && file.group === file.path) group = i;
    }
    if (group < 0) group = placeOf(file.group);
    out.group[i] = group < 0 ? i : group;
  }
  return { columns: out, placeOfStored, sessionWas, placeOf };
}

/** Row `from` of the loaded file columns `c` into row `at` of `out` (its session and group are places: set apart). */
function copyFile(out: FileColumns, at: number, c: FileColumns, from: number): void {
  out.path[at] = c.path[from] ?? 0;
  out.size[at] = c.size[from] ?? 0;
  out.mtime[at] = c.mtime[from] ?? 0;
  out.repeated[at] = c.repeated[from] ?? 0;
  out.rowCounts[at] = c.rowCounts[from] ?? 0;
  out.independent[at] = c.independent[from] ?? 0;
  out.start[at] = c.start[from] ?? Number.NaN;
  out.end[at] = c.end[from] ?? Number.NaN;
}

/** Row `from` of the loaded session columns `c` into row `at` of `out` (its files are a list apart). */
function copySession(out: SessionRow, at: number, c: SessionColumns, from: number): void {
  out.key[at] = c.key[from] ?? 0;
  out.sessionId[at] = c.sessionId[from] ?? -1;
  out.project[at] = c.project[from] ?? -1;
  out.agent[at] = c.agent[from] ?? 0;
  out.status[at] = c.status[from] ?? 0;
  out.start[at] = c.start[from] ?? Number.NaN;
  out.end[at] = c.end[from] ?? Number.NaN;
  out.badLines[at] = c.badLines[from] ?? 0;
  out.fileCounts[at] = c.fileCounts[from] ?? 0;
}

/** A session's columns but its list of files. */
type SessionRow = Omit<SessionColumns, "files" | "firstFile">;

/**
 * Each session's facts as columns (`sessionsOf` reads them): a loaded session's copied from where it was stored,
 * a session made again reusing the strings of the loaded one of the same key where they are the same.
 */
function packedSessions(
  sessions: readonly LedgerSession[],
  files: { readonly placeOfStored: Int32Array; readonly sessionWas: Int32Array; readonly placeOf: (path: string) => number },
  strings: StringList,
  from: { readonly stored: StoredResult; readonly sessions: ReadonlyMap<string, LedgerSession> } | undefined,
) {
  const n = sessions.length;
  const out: SessionRow = {
    key: new Int32Array(n),
    sessionId: new Int32Array(n),
    project: new Int32Array(n),
    agent: new Uint8Array(n),
    status: new Uint8Array(n),
    start: new Float64Array(n),
    end: new Float64Array(n),
    badLines: new Int32Array(n),
    fileCounts: new Int32Array(n),
  };
  const sessionFiles: number[] = [];
  const fileOf = (path: string): number => {
    const place = files.placeOf(path);
    return place >= 0 ? place : -strings.add(path) - 1;
  };
  for (let s = 0; s < n; s++) {
    const session = sessions[s] as LedgerSession;
    // Its place in the loaded result, when a file of it was kept (its strings are there); copied when it is the loaded session.
    const was = from === undefined ? -1 : (files.sessionWas[s] ?? -1);
    const c = from?.stored.sessions;
    if (c !== undefined && was >= 0 && from?.sessions.get(session.key) === session) {
      copySession(out, s, c, was);
      const first = c.firstFile[was] ?? 0;
      for (let k = 0; k < (c.fileCounts[was] ?? 0); k++) {
        const file = c.files[first + k] ?? 0;
        const now = file >= 0 ? (files.placeOfStored[file] ?? -1) : file;
        sessionFiles.push(file >= 0 && now < 0 ? fileOf(session.files[k] ?? "") : now);
      }
      continue;
    }
    const orNone = (value: string | null, place: number | undefined): number => (value === null ? -1 : strings.addOr(place, value));
    out.key[s] = strings.addOr(was < 0 ? undefined : c?.key[was], session.key);
    out.sessionId[s] = orNone(session.sessionId, was < 0 ? undefined : c?.sessionId[was]);
    out.project[s] = orNone(session.project, was < 0 ? undefined : c?.project[was]);
    out.agent[s] = AGENTS.indexOf(session.agent);
    out.status[s] = STATUSES.indexOf(session.status);
    out.start[s] = session.start ?? Number.NaN;
    out.end[s] = session.end ?? Number.NaN;
    out.badLines[s] = session.badLines;
    out.fileCounts[s] = session.files.length;
    for (const path of session.files) sessionFiles.push(fileOf(path));
  }
  return {
    files: sessionFiles.length,
    pack(columns: Packer): void {
      for (const column of [out.key, out.sessionId, out.project, out.agent, out.status, out.start, out.end, out.badLines, out.fileCounts]) {
        columns.add(column);
      }
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
    // The columns as they are, not copied into one buffer first (2 MB of fresh memory to fill).
    writeChunks(temporary, "w", [head, ...columns.chunks()]);
    renameSync(temporary, target);
    removeStale(dir, (name) => olderVersion(name, "usage-result-v", VERSION));
  } catch {
    // Not kept: the next run uses the per-file cache.
  }
}
