/**
 * The last run's result, condensed, for a run over the same unchanged files at the same prices: the commonest
 * case (`usage` again, `sessions` after `usage`) then reads no log and merges no request. Requests are condensed
 * to one row per session, model, subagent or not, quarter hour (every time zone's offset is a multiple of 15
 * minutes, so days, weeks and months come out the same in any zone) and kind of cost, each request priced on its
 * own first (a long-context tier depends on the request, not on a sum). Keyed by every file's path, size and
 * mtime and by the price table; anything else reads the per-file cache (cache.ts).
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FoundFile } from "./discover.ts";
import type { Charge, Ledger, LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { requestKey } from "./scanner.ts";
import { addTokens, totalTokens, zeroTokens } from "./types.ts";

const VERSION = 1;
const QUARTER_HOUR = 900_000;

interface StoredResult {
  version: number;
  fingerprint: string;
  duplicates: number;
  unreadable: string[];
  sessions: LedgerSession[];
  /** One row per condensed charge: [session index, model, sidechain, time, 6 counts, reported USD, estimated USD, unpriced, requests]. */
  rows: [
    number,
    string | null,
    boolean,
    number | null,
    number,
    number,
    number,
    number,
    number,
    number,
    number | null,
    number,
    boolean,
    number,
  ][];
}

/** What the result is keyed by: each file's path, size and mtime, and the prices. */
export function resultFingerprint(files: readonly FoundFile[], pricer: Pricer): string {
  const listed = files.map((f) => `${f.path}\u0000${f.size}\u0000${f.mtimeMs}`).sort();
  return `${requestKey(listed.join("\n"))}:${pricer.fingerprint}`;
}

/** One charge per session, model, subagent flag, quarter hour and kind of cost, each request priced on its own. */
export function condense(ledger: Ledger, pricer: Pricer): Ledger {
  type Row = Omit<Charge, "costUsd" | "estimated" | "requests"> & {
    costUsd: number | null;
    requests: number;
    estimated: { usd: number; unpriced: boolean };
  };
  const rows = new Map<string, Row>();
  for (const charge of ledger.charges) {
    const time = charge.time === null ? null : Math.floor(charge.time / QUARTER_HOUR) * QUARTER_HOUR;
    const estimated = charge.costUsd === null ? pricer.cost(charge.model, charge.tokens) : 0;
    const unpriced = estimated === undefined && totalTokens(charge.tokens) > 0;
    const kind = charge.costUsd !== null ? "reported" : unpriced ? "unpriced" : "estimated";
    const id = `${charge.session}\u0000${charge.model}\u0000${charge.sidechain}\u0000${time}\u0000${kind}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = {
        ...charge,
        time,
        tokens: zeroTokens(),
        costUsd: charge.costUsd === null ? null : 0,
        requests: 0,
        estimated: { usd: 0, unpriced },
      };
      rows.set(id, row);
    }
    addTokens(row.tokens, charge.tokens);
    row.requests += charge.requests ?? 1;
    if (charge.costUsd !== null) row.costUsd = (row.costUsd ?? 0) + charge.costUsd;
    row.estimated.usd += estimated ?? 0;
  }
  return { ...ledger, charges: [...rows.values()] };
}

function resultFile(dir: string): string {
  return join(dir, `usage-result-v${VERSION}.json`);
}

/** The last result when its fingerprint matches, else undefined. */
export function loadResult(dir: string, fingerprint: string): { ledger: Ledger; unreadable: string[] } | undefined {
  let stored: StoredResult;
  try {
    stored = JSON.parse(readFileSync(resultFile(dir), "utf8")) as StoredResult;
  } catch {
    return undefined;
  }
  if (stored.version !== VERSION || stored.fingerprint !== fingerprint) return undefined;
  const sessions = new Map(stored.sessions.map((s) => [s.key, s]));
  const charges: Charge[] = [];
  for (const [
    index,
    model,
    sidechain,
    time,
    input,
    output,
    cacheRead,
    cacheWrite,
    cacheWrite1h,
    reasoning,
    costUsd,
    usd,
    unpriced,
    requests,
  ] of stored.rows) {
    const session = stored.sessions[index];
    if (session === undefined) return undefined;
    const tokens = { input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning };
    charges.push({
      agent: session.agent,
      session: session.key,
      time,
      model,
      tokens,
      costUsd,
      sidechain,
      requests,
      estimated: { usd, unpriced },
    });
  }
  return { ledger: { charges, sessions, duplicates: stored.duplicates }, unreadable: stored.unreadable };
}

/** Keeps a condensed result for the next run (atomically; a failure to write changes nothing). */
export function saveResult(dir: string, fingerprint: string, ledger: Ledger, unreadable: readonly string[]): void {
  const sessions = [...ledger.sessions.values()];
  const index = new Map(sessions.map((s, i) => [s.key, i]));
  const rows: StoredResult["rows"] = ledger.charges.map((c) => {
    const t = c.tokens;
    return [
      index.get(c.session) ?? -1,
      c.model,
      c.sidechain,
      c.time,
      t.input,
      t.output,
      t.cacheRead,
      t.cacheWrite,
      t.cacheWrite1h,
      t.reasoning,
      c.costUsd,
      c.estimated?.usd ?? 0,
      c.estimated?.unpriced ?? false,
      c.requests ?? 1,
    ];
  });
  const stored: StoredResult = {
    version: VERSION,
    fingerprint,
    duplicates: ledger.duplicates,
    unreadable: [...unreadable],
    sessions,
    rows,
  };
  try {
    const target = resultFile(dir);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(stored), { mode: 0o600 });
    renameSync(temporary, target);
  } catch {
    // Not kept: the next run uses the per-file cache.
  }
}
