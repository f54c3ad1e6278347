/**
 * From file scans to what was spent, each request once: records that repeat across files (a resumed session
 * copies its history, a worktree or a backup holds a copy) are merged by their key, and Codex running totals
 * become per-request figures. The rules and the cases behind them: docs/usage.md.
 */
import {
  type FileScan,
  type SessionStatus,
  type TokenCounts,
  type UsageAgent,
  type UsageRecord,
  totalTokens,
  zeroTokens,
} from "./types.ts";

/** One request, counted once, with the session it is attributed to. */
export interface Charge {
  readonly agent: UsageAgent;
  /** Key of the session in `Ledger.sessions`. */
  readonly session: string;
  readonly time: number | null;
  readonly model: string | null;
  readonly tokens: TokenCounts;
  /** What the agent reported it cost; null: to be estimated from the price table. */
  readonly costUsd: number | null;
  readonly sidechain: boolean;
  /** A condensed charge (result-cache.ts) stands for this many requests of one quarter hour; else 1. */
  readonly requests?: number;
  /** A condensed charge's cost estimated when it was condensed (per request, at the table it was keyed by). */
  readonly estimated?: { readonly usd: number; readonly unpriced: boolean };
}

/** One session: its files (the main one first, then subagent files) and what they say. */
export interface LedgerSession {
  readonly key: string;
  readonly agent: UsageAgent;
  readonly sessionId: string | null;
  project: string | null;
  start: number | null;
  end: number | null;
  status: SessionStatus;
  readonly files: string[];
  badLines: number;
}

export interface Ledger {
  readonly charges: Charge[];
  readonly sessions: Map<string, LedgerSession>;
  /** Records read that repeated one already counted (the same request in another file or line). */
  readonly duplicates: number;
}

/**
 * Merges scans. They are taken in order of their start, then end (a resumed file copies the history with its
 * times, so it starts with the original but ends later), then path: a record copied into a later session stays
 * with the session that made the request, whatever order the files were read in.
 */
export function buildLedger(scans: readonly FileScan[]): Ledger {
  const ordered = [...scans].sort(
    (a, b) =>
      (a.facts.start ?? Infinity) - (b.facts.start ?? Infinity) ||
      (a.facts.end ?? Infinity) - (b.facts.end ?? Infinity) ||
      compare(a.path, b.path),
  );
  const sessions = new Map<string, LedgerSession>();
  // Two maps rather than one of small objects: a few hundred thousand requests stay cheap to hold and to collect.
  const chosen = new Map<string, UsageRecord>();
  const owner = new Map<string, LedgerSession>();
  let duplicates = 0;
  for (const scan of ordered) {
    const session = sessionOf(sessions, scan);
    for (const record of scan.records) {
      const known = chosen.get(record.key);
      if (known === undefined) {
        chosen.set(record.key, record);
        owner.set(record.key, session);
        continue;
      }
      duplicates++;
      // Across files the copy with the final figures wins: a response's output count only grows.
      if (record.tokens.output > known.tokens.output) chosen.set(record.key, record);
    }
  }
  return { charges: charges(chosen, owner), sessions, duplicates };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sessionOf(sessions: Map<string, LedgerSession>, scan: FileScan): LedgerSession {
  const { facts } = scan;
  const key = `${scan.agent}:${facts.sessionId ?? scan.path}`;
  let session = sessions.get(key);
  if (session === undefined) {
    session = {
      key,
      agent: scan.agent,
      sessionId: facts.sessionId,
      project: null,
      start: null,
      end: null,
      status: "unknown",
      files: [],
      badLines: 0,
    };
    sessions.set(key, session);
  }
  if (facts.subagent) session.files.push(scan.path);
  else {
    session.files.unshift(scan.path);
    // The main file's last state is the session's (a subagent's ending says nothing about it).
    if (session.end === null || (facts.end ?? -Infinity) >= session.end) session.status = facts.status;
  }
  session.project ??= facts.project;
  if (facts.start !== null) session.start = session.start === null ? facts.start : Math.min(session.start, facts.start);
  if (facts.end !== null) session.end = session.end === null ? facts.end : Math.max(session.end, facts.end);
  session.badLines += scan.badLines;
  return session;
}

/** Requests as charges; Codex running totals of one thread turned into differences, in order of the total. */
function charges(chosen: Map<string, UsageRecord>, owner: Map<string, LedgerSession>): Charge[] {
  const out: Charge[] = [];
  const threads = new Map<string, UsageRecord[]>();
  for (const record of chosen.values()) {
    if (record.cumulative === true) {
      const thread = record.thread ?? record.key;
      const list = threads.get(thread);
      if (list === undefined) threads.set(thread, [record]);
      else list.push(record);
      continue;
    }
    out.push(toCharge(record, owner, record.tokens));
  }
  for (const snapshots of threads.values()) {
    snapshots.sort((a, b) => totalTokens(a.tokens) - totalTokens(b.tokens));
    let before = zeroTokens();
    for (const snapshot of snapshots) {
      out.push(toCharge(snapshot, owner, difference(snapshot.tokens, before)));
      before = snapshot.tokens;
    }
  }
  return out;
}

function toCharge(record: UsageRecord, owner: Map<string, LedgerSession>, tokens: TokenCounts): Charge {
  const session = owner.get(record.key) as LedgerSession;
  return {
    agent: session.agent,
    session: session.key,
    time: record.time,
    model: record.model,
    tokens,
    costUsd: record.costUsd,
    sidechain: record.sidechain,
  };
}

function difference(now: TokenCounts, before: TokenCounts): TokenCounts {
  return {
    input: Math.max(0, now.input - before.input),
    output: Math.max(0, now.output - before.output),
    cacheRead: Math.max(0, now.cacheRead - before.cacheRead),
    cacheWrite: Math.max(0, now.cacheWrite - before.cacheWrite),
    cacheWrite1h: Math.max(0, now.cacheWrite1h - before.cacheWrite1h),
    reasoning: Math.max(0, now.reasoning - before.reasoning),
  };
}
