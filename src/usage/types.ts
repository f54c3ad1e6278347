/**
 * The shapes `sessions` and `usage` share: what one file's scan yields (plain data and typed arrays, so it
 * crosses a worker boundary and goes into the cache as it is), and the token counts in one meaning for every agent.
 */

/** The name of an agent whose session logs are read (its `UsageSource`, sources.ts): `claude`, `codex`, `gemini`. */
export type UsageAgent = string;

/**
 * Tokens of one request, in one meaning for every agent (docs/usage.md): `input` excludes cached input, `output`
 * includes reasoning, `reasoning` is the part of `output` the agent reported as reasoning.
 */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  /** All cache writes; `cacheWrite1h` is the part written with the one-hour lifetime (priced higher). */
  cacheWrite: number;
  cacheWrite1h: number;
  reasoning: number;
}

export function zeroTokens(): TokenCounts {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
}

export function addTokens(into: TokenCounts, add: TokenCounts): void {
  into.input += add.input;
  into.output += add.output;
  into.cacheRead += add.cacheRead;
  into.cacheWrite += add.cacheWrite;
  into.cacheWrite1h += add.cacheWrite1h;
  into.reasoning += add.reasoning;
}

/** Tokens and cost of a set of requests. */
export interface UsageFigures {
  readonly tokens: TokenCounts;
  /** Reported plus estimated cost of the priced requests. */
  costUsd: number;
  /** USD computed from the price table (the rest was reported by the agent). */
  estimatedUsd: number;
  requests: number;
  /** Models whose requests have no price: their tokens are counted, their cost is not (and is not zero). */
  readonly unpricedModels: Set<string>;
  readonly models: Set<string>;
}

/** Every token billed: input, output (reasoning included), cache reads and writes. */
export function totalTokens(t: TokenCounts): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite;
}

/**
 * A request's identity across files: two independent 53-bit hashes (cyrb53, two seeds) of the ids the agent's
 * rule keys it by (scanner.ts `requestKey`). `id` is the same pair as text, for the scanners' per-file maps.
 */
export interface RequestKey {
  readonly id: string;
  readonly hi: number;
  readonly lo: number;
}

/**
 * One usage record as a file gave it. `key` names the request across files (the dedupe rule per agent); for
 * Codex the tokens are the thread's cumulative figures (`cumulative`), turned into deltas across files.
 */
export interface UsageRecord {
  readonly key: RequestKey;
  /** Epoch ms of the record; null when it has no timestamp. */
  readonly time: number | null;
  readonly model: string | null;
  readonly tokens: TokenCounts;
  /** The cost the agent wrote into its log (early Claude Code `costUSD`); null when it wrote none. */
  readonly costUsd: number | null;
  /** A subagent's (sidechain) request. */
  readonly sidechain: boolean;
  /** Codex: `tokens` is the thread's running total, not this request's. */
  readonly cumulative?: true;
  /** Codex: the thread (and restart epoch) the running total belongs to. */
  readonly thread?: string;
}

/** `RecordColumns.flags` bits. */
export const SIDECHAIN = 1;
export const CUMULATIVE = 2;
export const REPORTED_COST = 4;
/** `RecordColumns.tokens` holds this many numbers per record, in this order. */
export const TOKEN_FIELDS = 6;

/**
 * One file's usage records by column, in typed arrays: about 80 bytes a request (records as objects took
 * several times that, and their keys as strings more), copied from a worker as a few blocks of memory, and
 * written to and read from the cache as they are (cache.ts). Row `i` of every column is record `i`.
 */
export interface RecordColumns {
  readonly length: number;
  /** The request's key (`RequestKey.hi`, `RequestKey.lo`). */
  readonly keyHi: Float64Array;
  readonly keyLo: Float64Array;
  /** Epoch ms; NaN: no timestamp. */
  readonly time: Float64Array;
  /** The cost the agent reported (flag REPORTED_COST), else 0. */
  readonly cost: Float64Array;
  /** `TOKEN_FIELDS` per record: input, output, cache read, cache write, one-hour cache write, reasoning. */
  readonly tokens: Float64Array;
  /** Index into `models`; -1: none. */
  readonly model: Int32Array;
  readonly models: readonly string[];
  /** SIDECHAIN | CUMULATIVE | REPORTED_COST. */
  readonly flags: Uint8Array;
  /** Codex: each record's running-total thread (null where not cumulative); absent when no record is cumulative. */
  readonly threads?: readonly (string | null)[] | undefined;
}

/** What one session (or the part of it one file holds) says about itself, beyond its usage. */
export interface SessionFacts {
  readonly agent: UsageAgent;
  sessionId: string | null;
  /** The working directory; for Gemini, the one its `.project_root` names, else the project folder's name (its logs carry only a hash). */
  project: string | null;
  /** Epoch ms of the first and last timestamp seen. */
  start: number | null;
  end: number | null;
  status: SessionStatus;
  /** A subagent file (Claude `subagents/agent-*.jsonl`): counted in its parent session. */
  subagent: boolean;
  /** The title the agent gave the session, where its store keeps one (OpenCode, Amp); absent otherwise. */
  title?: string | null;
}

/** `completed`: the agent wrote its end of turn last; `error`: an API error last; `open`: a turn never ended; else `unknown`. */
export type SessionStatus = "completed" | "error" | "open" | "unknown";

/** One file's scan: plain data and typed arrays (crosses workers, cached as it is). */
export interface FileScan {
  readonly path: string;
  readonly agent: UsageAgent;
  readonly size: number;
  readonly mtimeMs: number;
  /** Bytes read up to the end of the last complete line: an appended file is read on from here. */
  readonly offset: number;
  /**
   * A hash of the bytes just before `offset` (scan-file.ts `SEAM_BYTES`): a file that grew is read on only when
   * they are still there, so a file rewritten longer is read whole, not taken for an appended one. Absent in a
   * scan read whole from its start and never read on (a Gemini JSON chat), and in older caches.
   */
  readonly seam?: number | undefined;
  /** Lines that were not JSON or not objects (counted, never fatal). */
  readonly badLines: number;
  readonly facts: SessionFacts;
  /** Usage records after the in-file rule (the last record of a request wins). */
  readonly records: RecordColumns;
  /** What an appended read needs to go on (per agent; opaque outside its scanner). */
  readonly state: ScannerState;
}

/** Scanner state kept between reads of a growing file. */
export interface ScannerState {
  /** Codex: the running total's thread, restart epoch, last total and model. */
  thread?: string;
  epoch?: number;
  lastTotal?: number;
  model?: string;
  /** Whether the file's last record leaves a turn open (Codex task_started without task_complete). */
  turnOpen?: boolean;
}
