/**
 * The last run's result, condensed (condense.ts: one row per owning file, model, day in the report's time zone
 * and kind of cost, each request priced on its own), for the next run at the same prices and in the same zone.
 * Over the same unchanged files (`usage` again, `sessions` after `usage`) it is the answer: no log is read and no
 * request merged. After some files changed it is where the update starts (update.ts): the rows of the files that
 * did not change are kept. Keyed by every file's path, size and mtime, the price table and the time zone.
 *
 * Stored in binary: the key line first, a JSON header (each file with its size, mtime and number of rows, in
 * merge order; the sessions; the models), then the rows as one Float64Array.
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FoundFile } from "./discover.ts";
import type { Condensed, CondensedFile } from "./condense.ts";
import type { Charge, LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { textHash } from "./scanner.ts";

const VERSION = 3;
const MAGIC = "AGSURES3";
/** Numbers per row: session index, model index (-1: none), sidechain, time (NaN: none), six counts, reported USD (NaN: none), estimated USD, unpriced, requests, day (NaN: none). */
const ROW = 15;

type StoredSession = Omit<LedgerSession, "files"> & { readonly files: (number | string)[] };

/** A file's part: its rows are the next `rows` rows. */
type StoredFile = Omit<CondensedFile, "rows"> & { readonly rows: number };

interface StoredHeader {
  readonly duplicates: number;
  readonly unreadable: string[];
  readonly files: StoredFile[];
  /** Each session's files as their index in `files` (a path there is not in `files` stays as it is). */
  readonly sessions: StoredSession[];
  readonly models: string[];
  readonly rows: number;
}

/** A stored result: the one for these very files (`exact`), or an earlier one at the same prices and zone. */
export interface LastResult {
  readonly condensed: Condensed;
  readonly unreadable: string[];
  readonly exact: boolean;
}

/**
 * What the result is keyed by: each file's path, size and mtime, then (after the first colon) the prices and the
 * time zone of its days. The file list is hashed with SHA-256 (native: the list of thousands of files is hashed
 * on every run, before anything else can be skipped).
 */
export function resultFingerprint(files: readonly FoundFile[], pricer: Pricer, timeZone: string): string {
  const listed = files.map((f) => `${f.path}\u0000${f.size}\u0000${f.mtimeMs}`).sort();
  const filesHash = createHash("sha256").update(listed.join("\n")).digest("base64url");
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
    const body = Math.ceil((headerAt + headerBytes) / 8) * 8;
    const rows = new Float64Array(bytes.buffer, bytes.byteOffset + body, header.rows * ROW);
    return { condensed: condensedOf(header, rows, timeZone), unreadable: header.unreadable, exact: key === `${MAGIC}${fingerprint}` };
  } catch {
    return undefined;
  }
}

function condensedOf(header: StoredHeader, rows: Float64Array, timeZone: string): Condensed {
  const charges = chargesOf(header, rows);
  let first = 0;
  const files = header.files.map(({ path, size, mtimeMs, independent, repeated, rows: count }): CondensedFile => {
    const rows = charges.slice(first, first + count);
    first += count;
    return { path, size, mtimeMs, independent, repeated, rows };
  });
  const paths = header.files.map((file) => file.path);
  const sessions = new Map<string, LedgerSession>();
  for (const { key, agent, sessionId, project, start, end, status, files: stored, badLines } of header.sessions) {
    const files = stored.map((file) => (typeof file === "number" ? (paths[file] ?? "") : file));
    sessions.set(key, { key, agent, sessionId, project, start, end, status, files, badLines });
  }
  return { ledger: { charges, sessions, duplicates: header.duplicates, timeZone }, files };
}

function chargesOf(header: StoredHeader, rows: Float64Array): Charge[] {
  const charges: Charge[] = new Array(header.rows);
  const at = (i: number): number => rows[i] ?? 0;
  for (let r = 0, c = 0; r < rows.length; r += ROW, c++) {
    const session = header.sessions[at(r)] as LedgerSession;
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
  const { ledger } = condensed;
  const fileIndex = new Map(condensed.files.map((file, i) => [file.path, i]));
  const sessions = Array.from(
    ledger.sessions.values(),
    ({ key, agent, sessionId, project, start, end, status, files, badLines }): StoredSession => {
      const indices = files.map((path) => fileIndex.get(path) ?? path);
      return { key, agent, sessionId, project, start, end, status, files: indices, badLines };
    },
  );
  const models = new Set<string>();
  for (const { model } of ledger.charges) if (model !== null) models.add(model);
  const header: StoredHeader = {
    duplicates: ledger.duplicates,
    unreadable: [...unreadable],
    files: condensed.files.map(({ path, size, mtimeMs, independent, repeated, rows }) => ({
      path,
      size,
      mtimeMs,
      independent,
      repeated,
      rows: rows.length,
    })),
    sessions,
    models: [...models],
    rows: ledger.charges.length,
  };
  // One buffer, written in place: the key line, the header's length and the header, then the rows 8-aligned.
  const key = `${MAGIC}${fingerprint}\n`;
  const json = JSON.stringify(header);
  const jsonAt = Buffer.byteLength(key) + 4;
  const jsonBytes = Buffer.byteLength(json);
  const body = Math.ceil((jsonAt + jsonBytes) / 8) * 8;
  // Not from the pool: its own memory, so the rows' view is aligned.
  const out = Buffer.allocUnsafeSlow(body + ledger.charges.length * ROW * 8);
  out.write(key, 0, "utf8");
  out.writeUInt32LE(jsonBytes, jsonAt - 4);
  out.write(json, jsonAt, "utf8");
  out.fill(0, jsonAt + jsonBytes, body);
  const rows = new Float64Array(out.buffer, out.byteOffset + body, ledger.charges.length * ROW);
  fillRows(rows, ledger.charges, new Map(sessions.map((session, i) => [session.key, i])), header.models);
  try {
    const target = resultFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, out, { mode: 0o600 });
    renameSync(temporary, target);
    rmSync(join(dir, "usage-result-v1.json"), { force: true });
    rmSync(join(dir, "usage-result-v2.bin"), { force: true });
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
