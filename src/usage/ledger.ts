/**
 * From file scans to what was spent, each request once: records that repeat across files (a resumed session
 * copies its history, a worktree or a backup holds a copy) are merged by their key, and Codex running totals
 * become per-request figures. The rules and the cases behind them: docs/usage.md.
 */
import { readTokens } from "./columns.ts";
import {
  CUMULATIVE,
  type FileScan,
  type RecordColumns,
  REPORTED_COST,
  SIDECHAIN,
  type SessionStatus,
  TOKEN_FIELDS,
  type TokenCounts,
  type UsageAgent,
  totalTokens,
  zeroTokens,
} from "./types.ts";

/** One request, counted once, with the session it is attributed to. */
export interface Charge {
  readonly agent: UsageAgent;
  /** Key of the session in `Ledger.sessions`. */
  readonly session: string;
  readonly time: number | null;
  /** A condensed charge's day in `Ledger.timeZone` (days since 1970-01-01 there), when it has a time. */
  readonly day?: number | undefined;
  readonly model: string | null;
  readonly tokens: TokenCounts;
  /** What the agent reported it cost; null: to be estimated from the price table. */
  readonly costUsd: number | null;
  readonly sidechain: boolean;
  /** A condensed charge (condense.ts) stands for this many requests of one day; else 1. */
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
  /** The title its store keeps (OpenCode, Amp), else null. */
  title: string | null;
}

export interface Ledger {
  /** Every charge, in the order the requests were first seen (condensed: file by file, in merge order). */
  readonly charges: readonly Charge[];
  readonly sessions: Map<string, LedgerSession>;
  /** Records read that repeated one already counted (the same request in another file or line). */
  readonly duplicates: number;
  /** Set when the charges are condensed by day (condense.ts): the only time zone their days are right in. */
  readonly timeZone?: string;
}

/**
 * The scans merged: which record stands for each request (the file, in `scans`' order, and the row), and which
 * session it is charged to, in the order requests were first seen. Held in typed arrays, about 40 bytes a
 * request whatever the number of files.
 */
export interface Merged {
  /** The scans in the order they were merged (start, end, path). */
  readonly scans: readonly FileScan[];
  /** The session of each scan (same index). */
  readonly sessionOfScan: readonly LedgerSession[];
  readonly sessions: Map<string, LedgerSession>;
  /** Per request, in first-seen order: the scan and row of the record that counts, and the scan that owns it. */
  readonly requests: number;
  readonly chosenScan: Int32Array;
  readonly chosenRow: Int32Array;
  readonly ownerScan: Int32Array;
  readonly duplicates: number;
}

/**
 * Merges scans. They are taken in order of their start, then end (a resumed file copies the history with its
 * times, so it starts with the original but ends later), then path: a record copied into a later session stays
 * with the session that made the request, whatever order the files were read in.
 *
 * The set of requests seen is an open-addressing table of the keys' two hashes (Float64Array, no strings):
 * a slot is probed by the low bits of one hash and matched on both, so two requests whose slot or whose one
 * hash collide are still two requests; only a collision of both 53-bit hashes would merge them. A Map of the
 * keys as text took several times the CPU of a re-run over cached files (docs/usage.md, "Scale").
 */
export function mergeScans(scans: readonly FileScan[]): Merged {
  const ordered = orderScans(scans);
  const total = ordered.reduce((sum, scan) => sum + scan.records.length, 0);
  const requests = new RequestTable(ordered, total);
  for (let s = 0; s < ordered.length; s++) requests.addFile(s, (ordered[s] as FileScan).records);
  const { chosenScan, chosenRow, ownerScan, duplicates } = requests;
  return {
    scans: ordered,
    ...sessionsOf(ordered),
    requests: requests.count,
    chosenScan,
    chosenRow,
    ownerScan,
    duplicates,
  };
}

/** The scans in the order they are merged: start, then end, then path. */
function orderScans(scans: readonly FileScan[]): FileScan[] {
  // The keys taken out once (a sort compares each scan about log2(n) times).
  const keys = scans.map((scan, i) => ({ start: scan.facts.start, end: scan.facts.end, path: scan.path, i }));
  keys.sort(mergeOrder);
  return keys.map((key) => scans[key.i] as FileScan);
}

/** The sessions of scans in merge order, and the session of each. */
function sessionsOf(ordered: readonly FileScan[]): Pick<Merged, "sessions" | "sessionOfScan"> {
  const sessions = new Map<string, LedgerSession>();
  const sessionOfScan = ordered.map((scan) => sessionOf(sessions, scan));
  return { sessions, sessionOfScan };
}

/**
 * Which record stands for each request, and which file owns it, filled file by file (a small method per file:
 * it is optimised after a few files, where one loop over every record would run unoptimised for long).
 */
class RequestTable {
  readonly chosenScan: Int32Array;
  readonly chosenRow: Int32Array;
  readonly ownerScan: Int32Array;
  count = 0;
  duplicates = 0;
  private readonly table: KeyTable;
  private readonly ordered: readonly FileScan[];

  constructor(ordered: readonly FileScan[], total: number) {
    this.ordered = ordered;
    this.table = new KeyTable(total);
    this.chosenScan = new Int32Array(total);
    this.chosenRow = new Int32Array(total);
    this.ownerScan = new Int32Array(total);
  }

  addFile(s: number, columns: RecordColumns): void {
    const { keyHi, keyLo, tokens, length } = columns;
    const { chosenScan, chosenRow, ownerScan, table } = this;
    for (let row = 0; row < length; row++) {
      const request = table.find(keyHi[row] ?? 0, keyLo[row] ?? 0, this.count);
      if (request === this.count) {
        chosenScan[request] = s;
        chosenRow[request] = row;
        ownerScan[request] = s;
        this.count++;
        continue;
      }
      this.duplicates++;
      // Across files the copy with the final figures wins: a response's output count only grows.
      const known = this.ordered[chosenScan[request] ?? 0]?.records.tokens[(chosenRow[request] ?? 0) * TOKEN_FIELDS + 1] ?? 0;
      if ((tokens[row * TOKEN_FIELDS + 1] ?? 0) > known) {
        chosenScan[request] = s;
        chosenRow[request] = row;
      }
    }
  }
}

/** An open-addressing hash set of request keys (two 53-bit hashes), mapping each to its request number. */
class KeyTable {
  /** A slot's two hashes side by side (one cache line holds both: the table is too large for the cache). */
  private readonly keys: Float64Array;
  /** Request number + 1 per slot; 0: empty. */
  private readonly request: Int32Array;
  private readonly mask: number;

  constructor(keys: number) {
    let size = 16;
    // At most two thirds full: probes stay short.
    while (size < keys * 1.5) size *= 2;
    this.keys = new Float64Array(size * 2);
    this.request = new Int32Array(size);
    this.mask = size - 1;
  }

  /** The request number of the key; when it is new, it is added as `next` and `next` is returned. */
  find(hi: number, lo: number, next: number): number {
    const slot = this.slotOf(hi, lo);
    const held = this.request[slot] ?? 0;
    if (held !== 0) return held - 1;
    this.keys[2 * slot] = hi;
    this.keys[2 * slot + 1] = lo;
    this.request[slot] = next + 1;
    return next;
  }

  /** The key's slot, or the empty slot where it would go. */
  private slotOf(hi: number, lo: number): number {
    // The low 32 bits of one hash, mixed (Fibonacci hashing), choose the first slot.
    let slot = Math.imul(lo >>> 0, 0x9e3779b1) & this.mask;
    const { keys, request, mask } = this;
    for (;;) {
      if ((request[slot] ?? 0) === 0 || (keys[2 * slot] === hi && keys[2 * slot + 1] === lo)) return slot;
      slot = (slot + 1) & mask;
    }
  }
}

/** The ledger with one charge per request (`collect.ts` condenses it instead when it prices). */
export function buildLedger(scans: readonly FileScan[]): Ledger {
  const merged = mergeScans(scans);
  const charges: Charge[] = [];
  forEachCharge(merged, (charge) => charges.push({ ...charge, tokens: { ...charge.tokens } }));
  return { charges, sessions: merged.sessions, duplicates: merged.duplicates };
}

/** What places a file in merge order: its start, end (null: last) and path. */
interface OrderKey {
  readonly start: number | null;
  readonly end: number | null;
  readonly path: string;
}

/** `orderScans`' order: negative when `a` is merged first. */
function mergeOrder(a: OrderKey, b: OrderKey): number {
  const infinite = Number.POSITIVE_INFINITY;
  return (a.start ?? infinite) - (b.start ?? infinite) || (a.end ?? infinite) - (b.end ?? infinite) || compare(a.path, b.path);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The key of the session a scan belongs to (`Ledger.sessions`). */
function sessionKey(scan: FileScan): string {
  return `${scan.agent}:${scan.facts.sessionId ?? scan.path}`;
}

/**
 * Adds a scan to its session in `sessions` (made when new): scans are added in merge order, and what a session
 * says (its project, times, status, files) is what its scans say in that order.
 */
function sessionOf(sessions: Map<string, LedgerSession>, scan: FileScan): LedgerSession {
  const { facts } = scan;
  const key = sessionKey(scan);
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
      title: null,
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
  session.title ??= facts.title ?? null;
  if (facts.start !== null) session.start = session.start === null ? facts.start : Math.min(session.start, facts.start);
  if (facts.end !== null) session.end = session.end === null ? facts.end : Math.max(session.end, facts.end);
  session.badLines += scan.badLines;
  return session;
}

/** A charge as `forEachCharge` hands it over: one object reused for every request (copy what is kept). */
export interface ChargeView {
  agent: UsageAgent;
  session: string;
  time: number | null;
  model: string | null;
  readonly tokens: TokenCounts;
  costUsd: number | null;
  sidechain: boolean;
  /** The scan's model index (`Merged.scans[scan].records.models`) and the scan, for callers that index models. */
  scan: number;
  /** The scan that owns the request (its session's file). */
  owner: number;
  modelIndex: number;
}

/** A view to fill (`fillView`) and hand over. */
export function emptyView(): ChargeView {
  return {
    agent: "claude",
    session: "",
    time: null,
    model: null,
    tokens: zeroTokens(),
    costUsd: null,
    sidechain: false,
    scan: 0,
    owner: 0,
    modelIndex: -1,
  };
}

/** Whether request `request`'s record is a Codex running total (turned into a difference per thread). */
function isCumulative(merged: Merged, request: number): boolean {
  const columns = (merged.scans[merged.chosenScan[request] ?? 0] as FileScan).records;
  return ((columns.flags[merged.chosenRow[request] ?? 0] ?? 0) & CUMULATIVE) !== 0;
}

/**
 * Every request once, in first-seen order, then the Codex threads: each thread's running totals, in order of
 * the total, turned into differences (the first counts whole).
 */
function forEachCharge(merged: Merged, visit: (charge: ChargeView) => void): void {
  const view = emptyView();
  const cumulative: number[] = [];
  for (let request = 0; request < merged.requests; request++) {
    if (isCumulative(merged, request)) {
      cumulative.push(request);
      continue;
    }
    fillView(view, merged, request);
    visit(view);
  }
  forEachThreadCharge(merged, cumulative, visit);
}

/** The running totals among `cumulative` (request numbers, in first-seen order) as per-request charges, thread by thread. */
export function forEachThreadCharge(merged: Merged, cumulative: readonly number[], visit: (charge: ChargeView) => void): void {
  const view = emptyView();
  const threads = new Map<string, number[]>();
  for (const request of cumulative) {
    const columns = (merged.scans[merged.chosenScan[request] ?? 0] as FileScan).records;
    const row = merged.chosenRow[request] ?? 0;
    const thread = columns.threads?.[row] ?? `${columns.keyHi[row]}.${columns.keyLo[row]}`;
    const list = threads.get(thread);
    if (list === undefined) threads.set(thread, [request]);
    else list.push(request);
  }
  for (const snapshots of threads.values()) {
    const totals = snapshots.map((request) => {
      fillView(view, merged, request);
      return totalTokens(view.tokens);
    });
    const order = snapshots.map((_, i) => i).sort((a, b) => (totals[a] ?? 0) - (totals[b] ?? 0));
    let before = zeroTokens();
    for (const i of order) {
      fillView(view, merged, snapshots[i] ?? 0);
      const now = { ...view.tokens };
      subtract(view.tokens, before);
      visit(view);
      before = now;
    }
  }
}

/** Sets the view to request `request`'s record and owner. */
export function fillView(view: ChargeView, merged: Merged, request: number): void {
  const scan = merged.chosenScan[request] ?? 0;
  const row = merged.chosenRow[request] ?? 0;
  const c = (merged.scans[scan] as FileScan).records;
  const session = merged.sessionOfScan[merged.ownerScan[request] ?? 0] as LedgerSession;
  const flags = c.flags[row] ?? 0;
  const time = c.time[row] ?? Number.NaN;
  view.agent = session.agent;
  view.session = session.key;
  view.time = Number.isNaN(time) ? null : time;
  view.modelIndex = c.model[row] ?? -1;
  view.model = c.models[view.modelIndex] ?? null;
  view.scan = scan;
  view.owner = merged.ownerScan[request] ?? 0;
  view.costUsd = (flags & REPORTED_COST) !== 0 ? (c.cost[row] ?? 0) : null;
  view.sidechain = (flags & SIDECHAIN) !== 0;
  readTokens(view.tokens, c.tokens, row);
}

/** `now - before`, each kind at least 0, in place. */
function subtract(now: TokenCounts, before: TokenCounts): void {
  now.input = Math.max(0, now.input - before.input);
  now.output = Math.max(0, now.output - before.output);
  now.cacheRead = Math.max(0, now.cacheRead - before.cacheRead);
  now.cacheWrite = Math.max(0, now.cacheWrite - before.cacheWrite);
  now.cacheWrite1h = Math.max(0, now.cacheWrite1h - before.cacheWrite1h);
  now.reasoning = Math.max(0, now.reasoning - before.reasoning);
}
