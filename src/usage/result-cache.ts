/**
 * The last run's result, condensed, for a run over the same unchanged files at the same prices: the commonest
 * case (`usage` again, `sessions` after `usage`) then reads no log and merges no request. Requests are condensed
 * to one row per session, model, subagent or not, day in the report's time zone and kind of cost, each request
 * priced on its own first (a long-context tier depends on the request, not on a sum): the rows a report needs
 * (days, weeks and months are made of days), a few thousand where requests are hundreds of thousands. Keyed by
 * every file's path, size and mtime, the price table and the time zone; anything else reads the per-file cache
 * (cache.ts).
 *
 * Stored in binary: the key first (so that a result of other files is dismissed after reading a few bytes), a
 * JSON header (sessions, models), then the rows as one Float64Array.
 */
import { closeSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FoundFile } from "./discover.ts";
import type { Charge, Ledger, LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { textHash } from "./scanner.ts";

const VERSION = 3;
const MAGIC = "AGSURES3";
/** Numbers per row: session index, model index (-1: none), sidechain, time (NaN: none), six counts, reported USD (NaN: none), estimated USD, unpriced, requests. */
const ROW = 14;

interface StoredHeader {
  readonly duplicates: number;
  readonly unreadable: string[];
  readonly sessions: LedgerSession[];
  readonly models: string[];
  readonly rows: number;
}

/** What the result is keyed by: each file's path, size and mtime, the prices and the time zone of its days. */
export function resultFingerprint(files: readonly FoundFile[], pricer: Pricer, timeZone: string): string {
  const listed = files.map((f) => `${f.path}\u0000${f.size}\u0000${f.mtimeMs}`).sort();
  return `${textHash(listed.join("\n"))}:${pricer.fingerprint}:${textHash(timeZone)}`;
}

function resultFile(dir: string): string {
  return join(dir, `usage-result-v${VERSION}.bin`);
}

/** Whether the stored result is the one for `fingerprint`: its first bytes are read, not the whole file. */
function storedFor(path: string, fingerprint: string): boolean {
  const want = Buffer.from(`${MAGIC}${fingerprint}\n`, "utf8");
  const head = Buffer.alloc(want.length);
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(want);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The last result when its fingerprint matches, else undefined. */
export function loadResult(dir: string, fingerprint: string, timeZone: string): { ledger: Ledger; unreadable: string[] } | undefined {
  const path = resultFile(dir);
  if (!storedFor(path, fingerprint)) return undefined;
  try {
    let bytes: Uint8Array = readFileSync(path);
    if (bytes.byteOffset % 8 !== 0) bytes = new Uint8Array(bytes);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headerAt = Buffer.byteLength(`${MAGIC}${fingerprint}\n`) + 4;
    const headerBytes = buffer.readUInt32LE(headerAt - 4);
    const header = JSON.parse(buffer.toString("utf8", headerAt, headerAt + headerBytes)) as StoredHeader;
    const body = Math.ceil((headerAt + headerBytes) / 8) * 8;
    const rows = new Float64Array(bytes.buffer, bytes.byteOffset + body, header.rows * ROW);
    return { ledger: ledgerOf(header, rows, timeZone), unreadable: header.unreadable };
  } catch {
    return undefined;
  }
}

function ledgerOf(header: StoredHeader, rows: Float64Array, timeZone: string): Ledger {
  const charges: Charge[] = [];
  const at = (i: number): number => rows[i] ?? 0;
  for (let r = 0; r < rows.length; r += ROW) {
    const session = header.sessions[at(r)] as LedgerSession;
    const time = at(r + 3);
    const reported = at(r + 10);
    charges.push({
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
    });
  }
  return { charges, sessions: new Map(header.sessions.map((s) => [s.key, s])), duplicates: header.duplicates, timeZone };
}

/** Keeps a condensed result for the next run (atomically; a failure to write changes nothing). */
export function saveResult(dir: string, fingerprint: string, ledger: Ledger, unreadable: readonly string[]): void {
  const sessions = [...ledger.sessions.values()];
  const index = new Map(sessions.map((s, i) => [s.key, i]));
  const models: string[] = [];
  const modelIndex = new Map<string, number>();
  const rows = new Float64Array(ledger.charges.length * ROW);
  ledger.charges.forEach((c, i) => {
    let model = -1;
    if (c.model !== null) {
      model = modelIndex.get(c.model) ?? models.push(c.model) - 1;
      modelIndex.set(c.model, model);
    }
    const t = c.tokens;
    const r = i * ROW;
    rows[r] = index.get(c.session) ?? -1;
    rows[r + 1] = model;
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
  });
  const header: StoredHeader = {
    duplicates: ledger.duplicates,
    unreadable: [...unreadable],
    sessions,
    models,
    rows: ledger.charges.length,
  };
  const key = Buffer.from(`${MAGIC}${fingerprint}\n`, "utf8");
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const body = Math.ceil((key.length + 4 + json.length) / 8) * 8;
  const out = Buffer.alloc(body + rows.byteLength);
  key.copy(out, 0);
  out.writeUInt32LE(json.length, key.length);
  json.copy(out, key.length + 4);
  Buffer.from(rows.buffer).copy(out, body);
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
