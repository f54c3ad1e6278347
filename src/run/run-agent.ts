/**
 * runAgent(): spawns an agent CLI (no shell, its own process group), reads its stdout through the
 * synchronous event reader, turns its stderr into events, adds heartbeats while it is silent, ends it
 * on idle or overall timeouts, forwards signals, keeps crash-safe logs and drains its stdout
 * completely before reporting how it ended. Node only: this is the adapter, the pipeline is in pipeline/.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:os";
import { AgentStreamError, type Issue } from "../errors.ts";
import type { AgentEvent, AgentEventDraft } from "../model/events.ts";
import {
  createEventReaderFor,
  type EventReader,
  type EventReaderCallbacks,
  type HealthStats,
  type ReadOptions,
  type RecordStats,
} from "../pipeline/create-event-reader.ts";
import { primeReadingPath } from "../pipeline/prime-reading.ts";
import type { RedactionCounts } from "../stages/redact/redact-text.ts";
import { createSummaryBuilder, type SessionSummary, type SummaryBuilder } from "../summary/summarize.ts";
import { dialectOfCommand } from "./dialect-of-command.ts";
import { createEventQueue } from "./_event-queue.ts";
import { openRunLogs, type RunLogFiles, type RunLogFlow, type RunLogs } from "./_logs.ts";
import { ReceiptClock } from "./_receipt-time.ts";
import { type HeldStrings, withHeldTexts } from "../framing/held-strings.ts";

/** Where the logs of a run are (`AgentRun.logs`). */
export type { RunLogFiles };

/** Options for {@link runAgent}. */
export interface RunAgentOptions {
  /** Aborting sends SIGTERM to the agent's process group (SIGKILL after `killAfterMs`). */
  signal?: AbortSignal;
  cwd?: string;
  /** The agent's whole environment. @defaultValue process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** After this much silence a `heartbeat` event; 0 turns them off. @defaultValue 15000 */
  heartbeatMs?: number;
  /** End the agent after this much silence, unless a tool call is in flight; 0 or absent: never. */
  idleTimeoutMs?: number;
  /** End the agent after this long in all; 0 or absent: never. */
  timeoutMs?: number;
  /** After SIGTERM (timeouts, abort, leftover processes), SIGKILL follows after this long. @defaultValue 5000 */
  killAfterMs?: number;
  /**
   * After the agent exits, how long processes it started may keep its stdout open before they are
   * ended too (their output is still read until the pipe closes). @defaultValue 2000
   */
  drainMs?: number;
  /** The agent's stdin: ours (`inherit`) or none (`ignore`, /dev/null). Codex appends piped stdin to its prompt. @defaultValue "ignore" */
  stdin?: "inherit" | "ignore";
  /** The dialect of the agent's stdout. @defaultValue from the command name (claude, codex, ...), else `auto` */
  dialect?: string;
  /**
   * Reader options (framing, includeRaw, repair, limits, stages). `redact: true` replaces secrets in
   * every event and so in the events, oneshot and summary logs; the raw and stderr logs stay verbatim.
   */
  read?: Omit<ReadOptions, "dialect" | "onIssue" | "strict" | "file">;
  /** Receives every input issue as it happens (they are also in the result). */
  onIssue?: (issue: Issue) => void;
  /**
   * Another consumer of the events (a publisher, docs/fleet.md): called with each event, in order,
   * as soon as it is read, whether or not `events` is iterated. It must not block: the agent's
   * output is read in the same thread.
   */
  onEvent?: (event: AgentEvent) => void;
  /** A folder for this run's logs (docs/run.md); absent: no logs. */
  log?: string;
  /** Names the run and its log files. @defaultValue a time stamp and 6 random hex digits */
  runId?: string;
  /**
   * List every tool call in the result's `summary.toolCalls`. That list is the one part of a run's memory that grows
   * with its output (an entry per call): a caller that never reads it (the CLI without `--json` or `--final-summary`)
   * passes false, and `toolCalls` is then empty; with `log`, the summary log still lists every call, read back at the end
   * from a spool file beside the logs (each call is held only while it is open). @defaultValue true
   */
  listToolCalls?: boolean;
}

/** How the run ended. */
export type RunEnd = "exited" | "signaled" | "not-found" | "not-executable" | "spawn-failed" | "idle-timeout" | "timeout";

/** What {@link runAgent} reports once the agent is gone and its output read. */
export interface RunResult {
  readonly runId: string;
  /** What `agentstream run` exits with: the agent's code, 128+signal, 127 not found, 126 not executable, 124 timeout. */
  readonly exitCode: number;
  readonly end: RunEnd;
  /** The agent's own exit code, or null when a signal ended it (or it never started). */
  readonly agentExitCode: number | null;
  readonly agentSignal: NodeJS.Signals | null;
  /** True when the stream carried the dialect's terminal record (the session's result). */
  readonly complete: boolean;
  /** Why the stream is incomplete, when it is. */
  readonly incompleteReason?: string;
  readonly dialect: string | undefined;
  readonly summary: SessionSummary;
  readonly stats: RecordStats;
  readonly health: HealthStats;
  readonly issues: readonly Issue[];
  /** Secrets replaced, by kind, when `read.redact` is on (the CLI's default). */
  readonly redactions: RedactionCounts;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly durationMs: number;
  /** The log files, when `log` was given. */
  readonly logs?: RunLogFiles;
}

/** A running agent. */
export interface AgentRun {
  readonly runId: string;
  /** The agent's pid (its process group id too); undefined when it could not be started. */
  readonly pid: number | undefined;
  /** Every event in order: the agent's, its stderr lines, heartbeats, and ours (errors, notices). Iterate once. */
  readonly events: AsyncIterable<AgentEvent>;
  /** Resolves once the agent has exited and its output has been read to the end; never rejects for agent faults. */
  readonly result: Promise<RunResult>;
  /** Sends `signal` to the agent's process group. @defaultValue "SIGTERM" */
  kill(signal?: NodeJS.Signals): void;
}

/** Exit codes of our own (the rest are the agent's or 128+signal). */
export const RUN_EXIT = { timeout: 124, notExecutable: 126, notFound: 127 } as const;

/** Longest stderr line kept in an event; the stderr log has every byte. */
const STDERR_LINE_CHARS = 4096;
/**
 * Events waiting for a consumer before the agent's stdout is paused. Small on purpose: a paused stream, resumed,
 * hands over what it buffered in one turn of the event loop, and events queued across young-generation collections
 * are promoted to the old generation; thousands queued made most of a long run's promoted garbage (docs/run.md).
 */
const QUEUE_HIGH_WATER = 256;

/**
 * Runs an agent CLI and streams its events.
 * @example
 * const run = runAgent("claude", ["-p", "fix the tests", "--output-format", "stream-json", "--verbose"], { idleTimeoutMs: 600_000 });
 * for await (const event of run.events) if (event.type === "message.completed") console.log(event.text);
 * const { exitCode, summary } = await run.result;
 */
export function runAgent(command: string, args: readonly string[] = [], options: RunAgentOptions = {}): AgentRun {
  return runAgentHolding(command, args, options, undefined);
}

/**
 * For `run --to agentstream`, whose record sink splices held strings (framing/held-strings.ts): as `runAgent`,
 * with the reader holding long tool outputs in `held`; the logs splice them, and `events` yields their
 * placeholders, which the consumer splices and releases (`onEvent` gets their texts). Not part of the package's API.
 */
export function runAgentHolding(
  command: string,
  args: readonly string[],
  options: RunAgentOptions,
  held: HeldStrings | undefined,
): AgentRun {
  const run = new AgentRunState(command, args, options, held);
  return {
    runId: run.runId,
    get pid() {
      return run.child?.pid;
    },
    events: run.queue,
    result: run.result,
    kill(signal = "SIGTERM") {
      run.signalGroup(signal);
    },
  };
}

type AgentExit = { code: number | null; signal: NodeJS.Signals | null };

/** One run: the child, the reader, the logs, the timers, and how it ended. Built in the order runAgent needs. */
class AgentRunState {
  readonly command: string;
  readonly args: readonly string[];
  readonly options: RunAgentOptions;
  readonly runId: string;
  readonly started = Date.now();
  readonly heartbeatMs: number;
  readonly killAfterMs: number;
  readonly issues: Issue[] = [];
  readonly summary: SummaryBuilder;
  /** When the output being read arrived: the time of every event the agent gave none (docs/events.md). */
  readonly receipt = new ReceiptClock();
  readonly toolsInFlight = new Map<string, string>();
  readonly subagents = new Set<string>();
  child: ChildProcess | undefined;
  lastActivity = this.started;
  nextHeartbeat: number;
  sawResult = false;
  stdoutBytes = 0;
  stderrBytes = 0;
  ending: { end: RunEnd; reason: string } | undefined;
  killTimer: NodeJS.Timeout | undefined;
  /** We paused the agent's stdout because the consumer is behind: a pipe still open is ours to read, not a leftover. */
  consumerBehind = false;
  /** The same, because the log writer is behind. */
  logsBehind = false;

  readonly queue = createEventQueue<AgentEvent>({
    highWater: QUEUE_HIGH_WATER,
    onFull: () => {
      this.consumerBehind = true;
      this.flowAgentStdout();
    },
    onDrained: () => {
      this.consumerBehind = false;
      this.flowAgentStdout();
    },
  });

  readonly reader: EventReader;
  readonly logs: RunLogs | undefined;
  readonly ticker: NodeJS.Timeout;
  readonly result: Promise<RunResult>;
  /** One function, so that the listener added is the one removed. */
  readonly onAbort = (): void => this.terminate();

  // The child's end, filled in as it comes.
  exit: AgentExit | undefined;
  spawnError: NodeJS.ErrnoException | undefined;
  openPipes = 2;
  drainTimer: NodeJS.Timeout | undefined;
  stderrRest = "";
  readonly stderrDecoder = new TextDecoder();
  finished = false;

  constructor(command: string, args: readonly string[], options: RunAgentOptions, held: HeldStrings | undefined) {
    this.command = command;
    this.args = args;
    this.options = options;
    this.runId = options.runId ?? newRunId();
    this.summary = createSummaryBuilder({ toolCalls: options.listToolCalls !== false });
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.killAfterMs = options.killAfterMs ?? 5000;
    this.nextHeartbeat = this.heartbeatMs;
    const onEvent = options.onEvent;
    const callbacks: EventReaderCallbacks = {
      onEvent: (event) => {
        this.track(event);
        this.summary.add(event);
        this.logs?.event(event);
        if (onEvent !== undefined) onEvent(held === undefined ? event : withHeldTexts(event, held));
        this.queue.push(event);
      },
    };
    const readOptions: ReadOptions = {
      ...options.read,
      defaultTime: () => this.receipt.now(),
      dialect: options.dialect ?? dialectOfCommand(command),
      onIssue: (issue) => {
        if (issue.code === "unsafe-integer") this.logs?.expectLosslessIntegers();
        this.issues.push(issue);
        this.summary.addIssue(issue);
        options.onIssue?.(issue);
      },
    };
    this.reader = createEventReaderFor(callbacks, readOptions, { held });
    // After the reader: a bad option (an unknown dialect) throws before any log file exists.
    this.logs =
      options.log === undefined
        ? undefined
        : openLogs(options.log, this.runId, held, options.listToolCalls === false, {
            onBehind: () => {
              this.logsBehind = true;
              this.flowAgentStdout();
            },
            onCaughtUp: () => {
              this.logsBehind = false;
              this.flowAgentStdout();
            },
          });
    // The caller's own stages may make LosslessIntegers without the parser saying so.
    if ((options.read?.stages?.length ?? 0) > 0) this.logs?.expectLosslessIntegers();
    const tickMs = Math.max(
      10,
      Math.min(1000, ...[this.heartbeatMs, options.idleTimeoutMs ?? 0, options.timeoutMs ?? 0].filter((ms) => ms > 0).map((ms) => ms / 4)),
    );
    this.ticker = setInterval(() => this.tick(), tickMs);
    this.result = new Promise<RunResult>((resolve, reject) => this.start(resolve, reject));
    if (options.signal?.aborted === true) queueMicrotask(this.onAbort);
    else options.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The timers: the whole run's, the idle one (no tool call running), and the heartbeat. */
  tick(): void {
    const now = Date.now();
    const idle = now - this.lastActivity;
    const { timeoutMs, idleTimeoutMs } = this.options;
    if (timeoutMs !== undefined && timeoutMs > 0 && now - this.started >= timeoutMs) {
      this.endFor("timeout", `the run took longer than ${formatMs(timeoutMs)} (--timeout)`);
    }
    if (idleTimeoutMs !== undefined && idleTimeoutMs > 0 && idle >= idleTimeoutMs && this.toolsInFlight.size === 0) {
      this.endFor(
        "idle-timeout",
        `the agent said nothing for ${formatMs(idle)} with no tool call running (--idle-timeout ${formatMs(idleTimeoutMs)})`,
      );
    }
    if (this.heartbeatMs > 0 && idle >= this.nextHeartbeat && this.ending === undefined) {
      this.nextHeartbeat += this.heartbeatMs;
      this.ours({ type: "heartbeat", idleMs: idle });
    }
  }

  /** Starts the agent in its own process group and reads its two pipes; the result settles once both closed and it exited. */
  start(resolve: (result: RunResult) => void, reject: (error: unknown) => void): void {
    const finish = (): void => this.finish(resolve, reject);
    const options = this.options;
    try {
      this.child = spawn(this.command, [...this.args], {
        cwd: options.cwd,
        env: (options.env ?? process.env) as NodeJS.ProcessEnv,
        stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
        detached: true, // its own process group: signals reach the agent and everything it started
      });
    } catch (error) {
      // Synchronous failures (a bad cwd type, a NUL in an argument): reported like ENOENT.
      this.spawnError = error as NodeJS.ErrnoException;
      queueMicrotask(finish);
      return;
    }
    // The agent takes tens of milliseconds to start: compile the reading path meanwhile, not on its first line.
    primeReadingPath({ redact: this.options.read?.redact });
    const stdout = this.child.stdout as NonNullable<ChildProcess["stdout"]>;
    const stderr = this.child.stderr as NonNullable<ChildProcess["stderr"]>;
    stdout.on("data", (chunk: Buffer) => {
      // The audit copy first: what we have read is on disk before we parse it.
      this.logs?.raw(chunk);
      this.stdoutBytes += chunk.length;
      this.activity();
      this.reader.feed(chunk);
      this.logs?.flush(chunk.length);
    });
    stderr.on("data", (chunk: Buffer) => {
      this.logs?.stderr(chunk);
      this.stderrBytes += chunk.length;
      this.activity();
      this.stderrLines(this.stderrDecoder.decode(chunk, { stream: true }), false);
    });
    const pipeClosed = (): void => {
      this.openPipes--;
      if (this.openPipes === 0 && this.exit !== undefined) finish();
    };
    stdout.on("close", pipeClosed);
    stderr.on("close", pipeClosed);
    this.child.on("error", (error: NodeJS.ErrnoException) => {
      if (this.child?.pid !== undefined) return; // a failed kill, not a failed start
      this.spawnError = error;
      finish();
    });
    this.child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      if (this.openPipes === 0) finish();
      else this.drain(stdout, stderr);
    });
  }

  /** The agent is gone but something it started still holds its stdout: read on for a while, then end the group. */
  drain(stdout: NonNullable<ChildProcess["stdout"]>, stderr: NonNullable<ChildProcess["stderr"]>): void {
    const drainMs = this.options.drainMs ?? 2000;
    const checkLeftovers = (): void => {
      if (this.consumerBehind || this.logsBehind) {
        this.drainTimer = setTimeout(checkLeftovers, drainMs);
        return;
      }
      this.ours({
        type: "notice",
        kind: "leftover-processes",
        level: "warning",
        text: `processes started by the agent kept its output open ${formatMs(drainMs)} after it exited: ending its process group`,
      });
      this.terminate();
      // Whatever still holds the pipes after SIGKILL (a process outside the group) is not waited for.
      this.drainTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
      }, this.killAfterMs + 500);
    };
    this.drainTimer = setTimeout(checkLeftovers, drainMs);
  }

  /** Whole stderr lines as notices (the last, partial one waits unless `final`). */
  stderrLines(text: string, final: boolean): void {
    const all = this.stderrRest + text;
    const lines = all.split("\n");
    this.stderrRest = final ? "" : (lines.pop() as string);
    for (const line of lines) {
      const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (clean === "") continue;
      this.ours({
        type: "notice",
        kind: "stderr",
        level: "info",
        text:
          clean.length > STDERR_LINE_CHARS
            ? `${clean.slice(0, STDERR_LINE_CHARS)}… (${clean.length - STDERR_LINE_CHARS} more characters in the stderr log)`
            : clean,
      });
    }
  }

  /** Once: stops the timers, says how the agent ended, closes the reader and the logs, then settles the result. */
  finish(resolve: (result: RunResult) => void, reject: (error: unknown) => void): void {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.ticker);
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer);
    if (this.killTimer !== undefined) clearTimeout(this.killTimer);
    this.options.signal?.removeEventListener("abort", this.onAbort);
    this.receipt.arrived();
    this.stderrLines(this.stderrDecoder.decode(), true);
    this.reader.end();
    this.logs?.flush(); // the last line's events, while their input strings are still held
    const runResult = this.ended();
    const closed = this.logs?.close(runResult) ?? Promise.resolve();
    closed.then(
      () => {
        this.queue.close();
        resolve(runResult);
      },
      (error: unknown) => {
        // The logs could not be written (a full disk): the caller's environment, not the agent.
        this.queue.close();
        const reason = error instanceof Error ? error.message : String(error);
        reject(new AgentStreamError("io", `cannot write the run's logs in ${this.options.log}: ${reason}`, { cause: error }));
      },
    );
  }

  /** The run's last events (how the agent ended, an incomplete stream) and its result. */
  ended(): RunResult {
    const exit = this.exit;
    const outcome = describeEnd(exit, this.spawnError, this.ending, this.command);
    if (outcome.error !== undefined) this.ours(outcome.error);
    else if (exit !== undefined) {
      this.ours({
        type: "notice",
        kind: "exit",
        level: "info",
        text: exit.signal !== null ? `the agent was ended by ${exit.signal}` : `the agent exited with code ${exit.code}`,
        details: { exitCode: exit.code, signal: exit.signal },
      });
    }
    const tornTail = this.issues.some((i) => i.code === "truncated-tail" || i.code === "no-final-newline");
    const incompleteReason = this.sawResult ? undefined : incompleteBecause(outcome.end, exit, this.ending, tornTail);
    if (incompleteReason !== undefined && this.spawnError === undefined) {
      this.ours({
        type: "notice",
        kind: "incomplete",
        level: "warning",
        text: `the stream ended without the agent's final record: ${incompleteReason}`,
      });
    }
    return {
      runId: this.runId,
      exitCode: outcome.exitCode,
      end: outcome.end,
      agentExitCode: exit?.code ?? null,
      agentSignal: exit?.signal ?? null,
      complete: this.sawResult,
      ...(incompleteReason === undefined ? {} : { incompleteReason }),
      dialect: this.reader.dialect,
      summary: this.summary.result(this.reader.stats, this.reader.dialect, this.reader.health),
      stats: this.reader.stats,
      health: this.reader.health,
      issues: this.issues,
      redactions: this.reader.redactions,
      stdoutBytes: this.stdoutBytes,
      stderrBytes: this.stderrBytes,
      durationMs: Date.now() - this.started,
      ...(this.logs === undefined ? {} : { logs: this.logs.files }),
    };
  }

  flowAgentStdout(): void {
    if (this.consumerBehind || this.logsBehind) this.child?.stdout?.pause();
    else this.child?.stdout?.resume();
  }

  /** The ralph counter: a tool call in flight is work, not a hang. */
  track(event: AgentEvent): void {
    if (event.type === "tool.started") this.toolsInFlight.set(event.toolCallId, event.name);
    else if (event.type === "tool.completed") this.toolsInFlight.delete(event.toolCallId);
    else if (event.type === "session.started" && event.parentSessionId !== undefined && event.sessionId !== undefined)
      this.subagents.add(event.sessionId);
    else if (event.type === "session.completed" && (event.sessionId === undefined || !this.subagents.has(event.sessionId)))
      this.sawResult = true;
  }

  ours(draft: AgentEventDraft): void {
    this.receipt.arrived();
    this.reader.inject(draft);
    this.logs?.flush();
  }

  activity(): void {
    this.receipt.arrived();
    this.lastActivity = Date.now();
    this.nextHeartbeat = this.heartbeatMs;
  }

  signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.child?.exitCode !== null || this.child.signalCode !== null) {
      // The leader is gone: what is left of its group (processes holding its pipes) still gets it.
      if (pid !== undefined) tryKill(-pid, signal);
      return;
    }
    if (!tryKill(-pid, signal)) tryKill(pid, signal);
  }

  /** SIGTERM to the group now, SIGKILL after `killAfterMs` if anything is still there. */
  terminate(): void {
    this.signalGroup("SIGTERM");
    this.killTimer ??= setTimeout(() => this.signalGroup("SIGKILL"), this.killAfterMs);
  }

  endFor(end: "timeout" | "idle-timeout", message: string): void {
    if (this.ending !== undefined) return;
    this.ending = { end, reason: message };
    this.ours({ type: "error", scope: "session", code: end, message, fatal: true });
    this.terminate();
  }
}

/** Opens the run's logs; a folder that cannot be written is the caller's mistake, said before anything starts. */
/** `spoolToolCalls`: the summary lists no tool calls, so the summary log gets them from a spool on disk. */
function openLogs(dir: string, runId: string, held: HeldStrings | undefined, spoolToolCalls: boolean, flow: RunLogFlow): RunLogs {
  try {
    return openRunLogs(dir, runId, { flow, held, spoolToolCalls });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new AgentStreamError("io", `cannot write the run's logs in ${dir}: ${reason}`, { cause });
  }
}

function tryKill(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

interface EndOutcome {
  readonly end: RunEnd;
  readonly exitCode: number;
  readonly error?: AgentEventDraft;
}

function describeEnd(
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  spawnError: NodeJS.ErrnoException | undefined,
  ending: { end: RunEnd } | undefined,
  command: string,
): EndOutcome {
  if (spawnError !== undefined) {
    const notFound = spawnError.code === "ENOENT";
    const notExecutable = spawnError.code === "EACCES" || spawnError.code === "ENOEXEC";
    const message = notFound
      ? `${command}: command not found (is it installed and on PATH?)`
      : `${command}: cannot be started: ${spawnError.message}`;
    return {
      end: notFound ? "not-found" : notExecutable ? "not-executable" : "spawn-failed",
      exitCode: notFound ? RUN_EXIT.notFound : RUN_EXIT.notExecutable,
      error: { type: "error", scope: "session", code: notFound ? "command-not-found" : "command-not-executable", message, fatal: true },
    };
  }
  if (ending !== undefined) return { end: ending.end, exitCode: RUN_EXIT.timeout };
  if (exit?.signal != null) return { end: "signaled", exitCode: 128 + (constants.signals[exit.signal] ?? 0) };
  return { end: "exited", exitCode: exit?.code ?? 1 };
}

function incompleteBecause(
  end: RunEnd,
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  ending: { reason: string } | undefined,
  tornTail: boolean,
): string {
  if (ending !== undefined) return `${end === "timeout" ? "timed out" : "idle timeout"}: ${ending.reason}`;
  const torn = tornTail ? " (its last line was cut off)" : "";
  if (exit?.signal != null) return `the agent was ended by ${exit.signal}${torn}`;
  return `the agent exited with code ${exit?.code ?? "?"} before writing it${torn}`;
}

/** A run's id: a UTC time stamp and 6 random hex digits (`runAgent`'s default; `run` makes it first, for its writers). */
export function newRunId(): string {
  return `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}
