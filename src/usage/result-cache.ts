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
import type { Charge, LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { Packer, type TextEncoding, Unpacker } from "./packed.ts";
import { textHash } from "./scanner.ts";
import type { SessionStatus, UsageAgent } from "./types.ts";

const VERSION = 5;
const MAGIC = "AGSURES5";
/** Numbers per row: session index, model index (-1: none), sidechain, time (NaN: none), six counts, reported USD (NaN: none), estimated USD, unpriced, requests, day (NaN: none). */
const ROW = 15;

/** The JSON part of the header: what sizes the packed columns, and the short lists. */
interface StoredHeader {
  readonly duplicates: number;
  readonly unreadable: string[];
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
 * What the result is keyed by: each file's path, size and mtime, then (after the first colon) the prices and the
 * time zone of its days. The files are hashed in the order they were found (the walk goes in name order, so
 * the same files named the same way hash the same): the paths as one text, the sizes and mtimes as their bytes
 * (formatting thousands of mtimes as text cost more than the hash). Not a cryptographic hash: nobody chooses
 * these files to collide, and loading node:crypto cost a run more than hashing them.
 */
export function resultFingerprint(files: readonly FoundFile[], pricer: Pricer, timeZone: string): string {
  const numbers = new Float64Array(files.length * 2);
  files.forEach((file, i) => {
    numbers[2 * i] = file.size;
    numbers[2 * i + 1] = file.mtimeMs;
  });
  const filesHash = textHash(files.map((file) => file.path).join("\u0000"), numbers);
  return `${filesHash}:${pricer.fingerprint}:${textHash(timeZone)}`;
}

function resultFile(dir: string): string {
  return join(dir, `usage-result-v${VERSION}.bin`);
}

/**
 * The last result kept, when it was made at the same prices and in the same zone (the fingerprint's part after
 * its first colon); `exact` when its files are these too. A result of other prices, another zone, another
 * version, or one that cannot be read is undefined.
 */
export function loadLastResult(dir: string, fingerprint: string, timeZone: string): LastResult | undefined {
  try {
    let bytes: Uint8Array = readFileSync(resultFile(dir));
    if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const keyEnd = buffer.indexOf(0x0a);
    const key = buffer.toString("utf8", 0, keyEnd);
    const same = (k: string): string => k.slice(k.indexOf(":"));
    if (keyEnd === -1 || !key.startsWith(MAGIC) || same(key) !== same(fingerprint)) return undefined;
    const headerAt = keyEnd + 1 + 4;
    const headerBytes = buffer.readUInt32LE(headerAt - 4);
    const header = JSON.parse(buffer.toString("utf8", headerAt, headerAt + headerBytes)) as StoredHeader;
    const columns = new Unpacker(buffer, Math.ceil((headerAt + headerBytes) / 8) * 8);
    return { condensed: condensedOf(header, columns, timeZone), unreadable: header.unreadable, exact: key === `${MAGIC}${fingerprint}` };
  } catch {
    return undefined;
  }
}

/** The condensed result from the packed columns, read in the order `saveResult` packed them. */
function condensedOf(header: StoredHeader, columns: Unpacker, timeZone: string): Condensed {
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
  const charges = chargesOf(header, columns.f64(header.rows * ROW), sessionList);
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
        rows: charges.slice(first, first + rows),
      };
      first += rows;
    }
    return files;
  };
  const sessions = new Map(sessionList.map((session) => [session.key, session]));
  let files: CondensedFile[] | undefined;
  return {
    ledger: { charges, sessions, duplicates: header.duplicates, timeZone },
    // Made when first used: a run over unchanged files reports from the ledger alone (an update needs them).
    get files(): CondensedFile[] {
      files ??= filesOf();
      return files;
    },
  };
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

function chargesOf(header: StoredHeader, rows: Float64Array, sessions: readonly LedgerSession[]): Charge[] {
  const charges: Charge[] = new Array(header.rows);
  const at = (i: number): number => rows[i] ?? 0;
  for (let r = 0, c = 0; r < rows.length; r += ROW, c++) {
    const session = sessions[at(r)] as LedgerSession;
    const time = at(r + 3);
    const reported = at(r + 10);
    const day = at(r + 14);
    // An object literal, not spreads: a spread builds each charge by a generic copy, thousands of times a run.
    const charge: { -readonly [K in keyof Charge]: Charge[K] } = {
      agent: session.agent,
      session: session.key,
      model: header.models[at(r + 1)] ?? null,
      sidechain: at(r + 2) === 1,
      time: Number.isNaN(time) ? null : time,
      tokens: {
        input: at(r + 4),
        output: at(r + 5),
        cacheRead: at(r + 6),
        cacheWrite: at(r + 7),
        cacheWrite1h: at(r + 8),
        reasoning: at(r + 9),
      },
      costUsd: Number.isNaN(reported) ? null : reported,
      estimated: { usd: at(r + 11), unpriced: at(r + 12) === 1 },
      requests: at(r + 13),
    };
    if (!Number.isNaN(day)) charge.day = day;
    charges[c] = charge;
  }
  return charges;
}

/** Keeps a condensed result for the next run (atomically; a failure to write changes nothing). */
export function saveResult(dir: string, fingerprint: string, condensed: Condensed, unreadable: readonly string[]): void {
  const { ledger, files } = condensed;
  const strings: string[] = [];
  const stringOf = (value: string): number => strings.push(value) - 1;
  const columns = new Packer();
  const sessionList = [...ledger.sessions.values()];
  const filePaths = files.map((file) => stringOf(file.path));
  const fileIndex = new Map(files.map((file, i) => [file.path, i]));
  const sessionColumns = packedSessions(sessionList, fileIndex, stringOf);
  const modelSet = new Set<string>();
  for (const { model } of ledger.charges) if (model !== null) modelSet.add(model);
  const models = [...modelSet];
  const rows = new Float64Array(ledger.charges.length * ROW);
  const sessionIndex = new Map(sessionList.map((session, i) => [session.key, i]));
  fillRows(rows, ledger.charges, sessionIndex, models);
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
    unreadable: [...unreadable],
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
  write(dir, fingerprint, header, columns);
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
function write(dir: string, fingerprint: string, header: StoredHeader, columns: Packer): void {
  const key = `${MAGIC}${fingerprint}\n`;
  const json = JSON.stringify(header);
  const jsonAt = Buffer.byteLength(key) + 4;
  const jsonBytes = Buffer.byteLength(json);
  const head = Buffer.alloc(Math.ceil((jsonAt + jsonBytes) / 8) * 8);
  head.write(key, 0, "utf8");
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

/** Each charge as a row of `ROW` numbers (the layout `chargesOf` reads). */
function fillRows(
  rows: Float64Array,
  charges: readonly Charge[],
  sessionIndex: ReadonlyMap<string, number>,
  models: readonly string[],
): void {
  const modelIndex = new Map(models.map((model, i) => [model, i]));
  charges.forEach((c, i) => {
    const t = c.tokens;
    const r = i * ROW;
    rows[r] = sessionIndex.get(c.session) ?? -1;
    rows[r + 1] = c.model === null ? -1 : (modelIndex.get(c.model) ?? -1);
    rows[r + 2] = c.sidechain ? 1 : 0;
    rows[r + 3] = c.time ?? Number.NaN;
    rows[r + 4] = t.input;
    rows[r + 5] = t.output;
    rows[r + 6] = t.cacheRead;
    rows[r + 7] = t.cacheWrite;
    rows[r + 8] = t.cacheWrite1h;
    rows[r + 9] = t.reasoning;
    rows[r + 10] = c.costUsd ?? Number.NaN;
    rows[r + 11] = c.estimated?.usd ?? 0;
    rows[r + 12] = c.estimated?.unpriced === true ? 1 : 0;
    rows[r + 13] = c.requests ?? 1;
    rows[r + 14] = c.day ?? Number.NaN;
  });
}
