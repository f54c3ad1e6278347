/**
 * The per-run log files. Every write is one synchronous `write(2)` of whole lines (the raw and stderr
 * copies: whole chunks, appended before they are parsed), so a SIGKILL of us or of the agent at any
 * moment leaves each file intact up to its last complete line. Files are created 0600.
 *
 * The events and oneshot logs are serialized and written by a worker thread (src/run/_log-worker.ts),
 * so that work runs on a second core beside the parser: one batch per chunk of agent output, handed
 * over by structured clone. When the worker falls behind, `onBehind` asks the caller to pause the
 * agent (memory stays bounded); `onCaughtUp` lets it go on. Untranspiled sources (the tests) write
 * the same lines in-thread.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { AgentEvent } from "../model/events.ts";
import { createLogLineWriter, findLosslessIntegers, writeAll, type LogLineFds, type LosslessPaths } from "./_log-lines.ts";
import { packDeltas, type PackedDeltas } from "./_packed-deltas.ts";
import { forEachHeld, type HeldStrings } from "../framing/held-strings.ts";
import { createToolCallSpool, type ToolCallSpool } from "./_tool-call-spool.ts";

/** Where a run's logs went. */
export interface RunLogFiles {
  /** Every byte of the agent's stdout, as read (the audit copy: never redacted). */
  readonly raw: string;
  /** Every byte of the agent's stderr. */
  readonly stderr: string;
  /** Our events, one JSON line each. */
  readonly events: string;
  /** The oneshot seed's packets (heartbeats included). */
  readonly oneshot: string;
  /** The run's summary (RunResult without the events), written once at the end. */
  readonly summary: string;
}

export interface RunLogs {
  readonly files: RunLogFiles;
  raw(chunk: Uint8Array): void;
  stderr(chunk: Uint8Array): void;
  /** Queues an event; `flush` hands the queued events over to be written, one write per file. */
  event(event: AgentEvent): void;
  /** `inputBytes`: how much agent output the queued events came from (what backpressure counts). */
  flush(inputBytes?: number): void;
  /**
   * From now on the events may hold LosslessIntegers (the reader reported an unsafe integer, or the
   * caller's own stages run): each batch is searched for them before it goes to the log worker.
   */
  expectLosslessIntegers(): void;
  /** Writes what is queued and the summary, and closes every file. */
  close(summary: unknown): Promise<void>;
}

export interface RunLogFlow {
  /** The events logs are behind by more than LOG_HIGH_WATER bytes of agent output: pause the agent. */
  onBehind(): void;
  /** They are back under half of it. */
  onCaughtUp(): void;
}

/** Messages to the log worker. */
export type ToLogWorker =
  | {
      readonly type: "events";
      /** The batch's events, but for the deltas in `packed` (when there is one), which go between them. */
      readonly events: readonly AgentEvent[];
      readonly packed: PackedDeltas | undefined;
      /** Where `events` hold LosslessIntegers (indexes into `events`). */
      readonly lossless: readonly (readonly [number, LosslessPaths])[];
      /** No event of the run can hold a LosslessInteger yet (none was reported): the lines need no search for one. */
      readonly plainJson: boolean;
      /** The held strings the events' placeholders stand for, packed into one buffer. */
      readonly strings: HeldBytes | undefined;
      readonly bytes: number;
    }
  | { readonly type: "end" };
/** Held strings' JSON bytes, one after another in `bytes` (`[key, offset, length]`). */
interface HeldBytes {
  readonly bytes: Uint8Array;
  readonly entries: readonly (readonly [string, number, number])[];
}

/** What the log worker is started with: the two files, the nonce of the reader's held strings, and the run's id. */
export interface LogWorkerData extends LogLineFds {
  /** Undefined when the run's reader holds no strings. */
  readonly nonce: string | undefined;
  readonly runId: string;
}

/** Messages from it. */
type FromLogWorker = { readonly type: "written"; readonly bytes: number } | { readonly type: "ended" };

/**
 * Agent output (bytes) whose events may wait for the log worker before the agent is paused. What waits is
 * the batches' serialized clones (native memory, about the size of the output they came from), and the
 * allocator keeps the most it ever held: this bound is part of the peak. A busy machine starves the worker
 * now and then, so it is reached; 1 MiB still leaves the worker a backlog to work on while the agent is paused
 * (at 1 GB of output, 2 MiB peaked about 15 MB higher and was no faster: docs/run.md).
 */
const LOG_HIGH_WATER = 1024 * 1024;
/** Each batch counts at least this much, so many small batches (heartbeats, stderr lines) count too. */
const BATCH_MIN_WEIGHT = 1024;

/** The log worker's young generation, MB (V8's default is sized for a main thread). */
const LOG_WORKER_YOUNG_MB = 8;
const workerUrl = new URL("./_log-worker.js", import.meta.url);
/** The worker is compiled JavaScript; the TypeScript sources (vitest) have none beside them. */
const workerAvailable = import.meta.url.endsWith(".js");

/** How the logs are written beyond the defaults. */
export interface RunLogOptions {
  readonly flow?: RunLogFlow;
  /** The strings the run's reader holds (`run --to agentstream`), which the logs splice too. */
  readonly held?: HeldStrings | undefined;
  /**
   * The summary's `toolCalls` come from the logs' own spool (src/run/_tool-call-spool.ts), not from memory: the
   * summary given to `close` has an empty list, which the summary log replaces with every call of the run.
   */
  readonly spoolToolCalls?: boolean;
}

export function openRunLogs(dir: string, runId: string, options: RunLogOptions = {}): RunLogs {
  const { flow, held } = options;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: RunLogFiles = {
    raw: join(dir, `${runId}.raw`),
    stderr: join(dir, `${runId}.stderr`),
    events: join(dir, `${runId}.events.ndjson`),
    oneshot: join(dir, `${runId}-oneshot-log.json`),
    summary: join(dir, `${runId}.summary.json`),
  };
  const open = (path: string): number => openSync(path, "a", 0o600);
  const fds = { raw: open(files.raw), stderr: open(files.stderr), events: open(files.events), oneshot: open(files.oneshot) };
  const lines = workerAvailable ? createWorkerLines(fds, runId, flow, held) : createInThreadLines(fds, runId, held);
  const toolCalls = options.spoolToolCalls === true ? createToolCallSpool(join(dir, `.${runId}.tool-calls.tmp`)) : undefined;
  let events: AgentEvent[] = [];
  return {
    files,
    raw: (chunk) => writeAll(fds.raw, chunk),
    stderr: (chunk) => writeAll(fds.stderr, chunk),
    event(event) {
      events.push(event);
      toolCalls?.add(event);
    },
    flush(inputBytes = 0) {
      if (events.length === 0) return;
      lines.write(events, inputBytes);
      events = [];
    },
    expectLosslessIntegers() {
      lines.expectLosslessIntegers();
    },
    async close(summary) {
      if (events.length > 0) lines.write(events, 0);
      events = [];
      try {
        await lines.end();
      } catch (error) {
        toolCalls?.discard(); // no summary log to read it back into
        throw error;
      } finally {
        for (const fd of Object.values(fds)) closeSync(fd);
      }
      try {
        const fd = open(files.summary);
        try {
          if (toolCalls === undefined) writeAll(fd, `${JSON.stringify(summary, null, 2)}\n`);
          else writeSummarySpliced(fd, summary, toolCalls);
        } finally {
          closeSync(fd);
        }
      } finally {
        toolCalls?.discard();
      }
    },
  };
}

/** The summary with its `toolCalls` array's elements read from the spool (pretty-printed as JSON.stringify would). */
function writeSummarySpliced(fd: number, summary: unknown, toolCalls: ToolCallSpool): void {
  const marker = `tool-calls-${Math.random().toString(36).slice(2)}`;
  const text = JSON.stringify(summary, (key, value: unknown) => (key === "toolCalls" && Array.isArray(value) ? marker : value), 2);
  const at = text.indexOf(`"${marker}"`);
  if (at < 0) return writeAll(fd, `${text}\n`);
  const lineStart = text.lastIndexOf("\n", at) + 1;
  const indent = /^ */.exec(text.slice(lineStart))?.[0] ?? "";
  writeAll(fd, `${text.slice(0, at)}[`);
  const listed = toolCalls.writeTo(fd, `${indent}  `);
  writeAll(fd, `${listed > 0 ? `\n${indent}` : ""}]${text.slice(at + marker.length + 2)}\n`);
}

interface EventLines {
  write(events: readonly AgentEvent[], inputBytes: number): void;
  expectLosslessIntegers(): void;
  end(): Promise<void>;
}

function createInThreadLines(fds: LogLineFds, runId: string, held: HeldStrings | undefined): EventLines {
  const writer = createLogLineWriter(fds, held, runId);
  return {
    write: (events) => writer.write(events),
    expectLosslessIntegers() {
      // Nothing to do: the events are written as they are, LosslessIntegers included.
    },
    end() {
      writer.end();
      return Promise.resolve();
    },
  };
}

function createWorkerLines(fds: LogLineFds, runId: string, flow: RunLogFlow | undefined, held: HeldStrings | undefined): EventLines {
  // Not our process's flags (--input-type, --eval, a profiler's): some stop a worker from starting.
  const workerData: LogWorkerData = { events: fds.events, oneshot: fds.oneshot, nonce: held?.nonce, runId };
  // A small young generation: the worker allocates each batch's lines and drops them, so the default (tens of MB) is slack.
  const worker = new Worker(workerUrl, { execArgv: [], workerData, resourceLimits: { maxYoungGenerationSizeMb: LOG_WORKER_YOUNG_MB } });
  let inFlight = 0;
  let behind = false;
  // Searching every event costs the main thread a share of the parse; only the parser makes
  // LosslessIntegers (and says so), so the search starts at the first one.
  let searchLossless = false;
  let failure: unknown;
  let ended: (() => void) | undefined;
  let failed: ((error: unknown) => void) | undefined;
  worker.on("message", (message: FromLogWorker) => {
    if (message.type === "ended") {
      ended?.();
      return;
    }
    inFlight -= message.bytes;
    if (behind && inFlight <= LOG_HIGH_WATER / 2) {
      behind = false;
      flow?.onCaughtUp();
    }
  });
  worker.on("error", (error) => {
    // A write that failed (a full disk): the run goes on, and its result says the logs failed.
    failure = error;
    failed?.(error);
    if (behind) {
      behind = false;
      flow?.onCaughtUp();
    }
  });
  return {
    write(events, inputBytes) {
      if (failure !== undefined) return;
      const packing = packDeltas(events);
      const others = packing?.rest ?? events;
      const lossless: [number, LosslessPaths][] = [];
      for (let i = 0; searchLossless && i < others.length; i++) {
        const paths = findLosslessIntegers(others[i]);
        if (paths.length > 0) lossless.push([i, paths]);
      }
      const heldBytes = held === undefined ? undefined : heldBytesOf(others, held);
      const bytes = Math.max(inputBytes, BATCH_MIN_WEIGHT);
      inFlight += bytes;
      const message: ToLogWorker = {
        type: "events",
        events: others,
        packed: packing?.packed,
        lossless,
        plainJson: !searchLossless,
        strings: heldBytes,
        bytes,
      };
      // The held strings' bytes are moved, not copied: they were copied once into their own buffer.
      worker.postMessage(message, heldBytes === undefined ? [] : [heldBytes.bytes.buffer as ArrayBuffer]);
      if (!behind && inFlight > LOG_HIGH_WATER) {
        behind = true;
        flow?.onBehind();
      }
    },
    expectLosslessIntegers() {
      searchLossless = true;
    },
    async end() {
      try {
        if (failure !== undefined) throw failure;
        await new Promise<void>((resolve, reject) => {
          ended = resolve;
          failed = reject;
          worker.postMessage({ type: "end" } satisfies ToLogWorker);
        });
      } finally {
        await worker.terminate();
      }
    },
  };
}

/**
 * The bytes of the held strings the batch's placeholders stand for, copied into one buffer that is moved
 * (a held string is a view into its line, and a clone of a view copies its whole buffer); undefined when
 * it has none.
 */
function heldBytesOf(events: readonly AgentEvent[], held: HeldStrings): HeldBytes | undefined {
  const found: [string, Uint8Array][] = [];
  let total = 0;
  for (const event of events)
    forEachHeld(event, held, (key) => {
      const json = held.bytes(key);
      if (json === undefined) return;
      found.push([key, json]);
      total += json.length;
    });
  if (found.length === 0) return undefined;
  const bytes = new Uint8Array(total);
  const entries: [string, number, number][] = [];
  let at = 0;
  for (const [key, json] of found) {
    bytes.set(json, at);
    entries.push([key, at, json.length]);
    at += json.length;
  }
  return { bytes, entries };
}
