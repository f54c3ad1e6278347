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
import { createEventReader, type HealthStats, type ReadOptions, type RecordStats } from "../pipeline/create-event-reader.ts";
import type { RedactionCounts } from "../stages/redact/redact-text.ts";
import { createSummaryBuilder, type SessionSummary } from "../summary/summarize.ts";
import { dialectOfCommand } from "./_dialect-of-command.ts";
import { createEventQueue } from "./_event-queue.ts";
import { openRunLogs, type RunLogFiles, type RunLogFlow, type RunLogs } from "./_logs.ts";

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
/** Events waiting for a consumer before the agent's stdout is paused. */
const QUEUE_HIGH_WATER = 4096;

/**
 * Runs an agent CLI and streams its events.
 * @example
 * const run = runAgent("claude", ["-p", "fix the tests", "--output-format", "stream-json", "--verbose"], { idleTimeoutMs: 600_000 });
 * for await (const event of run.events) if (event.type === "message.completed") console.log(event.text);
 * const { exitCode, summary } = await run.result;
 */
export function runAgent(command: string, args: readonly string[] = [], options: RunAgentOptions = {}): AgentRun {
  const runId = options.runId ?? newRunId();
  const started = Date.now();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const killAfterMs = options.killAfterMs ?? 5000;
  const issues: Issue[] = [];
  const summary = createSummaryBuilder();
  const toolsInFlight = new Map<string, string>();
  const subagents = new Set<string>();
  let child: ChildProcess | undefined;
  let lastActivity = started;
  let nextHeartbeat = heartbeatMs;
  let sawResult = false;
  let stdoutBytes = 0;
  let stderrBytes = 0;
  let ending: { end: RunEnd; reason: string } | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  /** We paused the agent's stdout because the consumer is behind: a pipe still open is ours to read, not a leftover. */
  let consumerBehind = false;
  /** The same, because the log writer is behind. */
  let logsBehind = false;
  const flowAgentStdout = (): void => {
    if (consumerBehind || logsBehind) child?.stdout?.pause();
    else child?.stdout?.resume();
  };

  const queue = createEventQueue<AgentEvent>({
    highWater: QUEUE_HIGH_WATER,
    onFull: () => {
      consumerBehind = true;
      flowAgentStdout();
    },
    onDrained: () => {
      consumerBehind = false;
      flowAgentStdout();
    },
  });

  const reader = createEventReader(
    {
      onEvent(event) {
        track(event);
        summary.add(event);
        logs?.event(event);
        options.onEvent?.(event);
        queue.push(event);
      },
    },
    {
      ...options.read,
      dialect: options.dialect ?? dialectOfCommand(command),
      onIssue(issue) {
        if (issue.code === "unsafe-integer") logs?.expectLosslessIntegers();
        issues.push(issue);
        summary.addIssue(issue);
        options.onIssue?.(issue);
      },
    },
  );

  // After the reader: a bad option (an unknown dialect) throws before any log file exists.
  const logs =
    options.log === undefined
      ? undefined
      : openLogs(options.log, runId, {
          onBehind: () => {
            logsBehind = true;
            flowAgentStdout();
          },
          onCaughtUp: () => {
            logsBehind = false;
            flowAgentStdout();
          },
        });

  // The caller's own stages may make LosslessIntegers without the parser saying so.
  if ((options.read?.stages?.length ?? 0) > 0) logs?.expectLosslessIntegers();

  /** The ralph counter: a tool call in flight is work, not a hang. */
  function track(event: AgentEvent): void {
    if (event.type === "tool.started") toolsInFlight.set(event.toolCallId, event.name);
    else if (event.type === "tool.completed") toolsInFlight.delete(event.toolCallId);
    else if (event.type === "session.started" && event.parentSessionId !== undefined && event.sessionId !== undefined)
      subagents.add(event.sessionId);
    else if (event.type === "session.completed" && (event.sessionId === undefined || !subagents.has(event.sessionId))) sawResult = true;
  }

  function ours(draft: AgentEventDraft): void {
    reader.inject(draft);
    logs?.flush();
  }

  function activity(): void {
    lastActivity = Date.now();
    nextHeartbeat = heartbeatMs;
  }

  function signalGroup(signal: NodeJS.Signals): void {
    const pid = child?.pid;
    if (pid === undefined || child?.exitCode !== null || child.signalCode !== null) {
      // The leader is gone: what is left of its group (processes holding its pipes) still gets it.
      if (pid !== undefined) tryKill(-pid, signal);
      return;
    }
    if (!tryKill(-pid, signal)) tryKill(pid, signal);
  }

  /** SIGTERM to the group now, SIGKILL after `killAfterMs` if anything is still there. */
  function terminate(): void {
    signalGroup("SIGTERM");
    killTimer ??= setTimeout(() => signalGroup("SIGKILL"), killAfterMs);
  }

  function endFor(end: "timeout" | "idle-timeout", message: string): void {
    if (ending !== undefined) return;
    ending = { end, reason: message };
    ours({ type: "error", scope: "session", code: end, message, fatal: true });
    terminate();
  }

  const tickMs = Math.max(
    10,
    Math.min(1000, ...[heartbeatMs, options.idleTimeoutMs ?? 0, options.timeoutMs ?? 0].filter((ms) => ms > 0).map((ms) => ms / 4)),
  );
  const ticker = setInterval(() => {
    const now = Date.now();
    const idle = now - lastActivity;
    if (options.timeoutMs !== undefined && options.timeoutMs > 0 && now - started >= options.timeoutMs) {
      endFor("timeout", `the run took longer than ${formatMs(options.timeoutMs)} (--timeout)`);
    }
    if (options.idleTimeoutMs !== undefined && options.idleTimeoutMs > 0 && idle >= options.idleTimeoutMs && toolsInFlight.size === 0) {
      endFor(
        "idle-timeout",
        `the agent said nothing for ${formatMs(idle)} with no tool call running (--idle-timeout ${formatMs(options.idleTimeoutMs)})`,
      );
    }
    if (heartbeatMs > 0 && idle >= nextHeartbeat && ending === undefined) {
      nextHeartbeat += heartbeatMs;
      ours({ type: "heartbeat", idleMs: idle });
    }
  }, tickMs);

  const result = new Promise<RunResult>((resolve, reject) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    let openPipes = 2;
    let drainTimer: NodeJS.Timeout | undefined;
    let stderrRest = "";
    const stderrDecoder = new TextDecoder();

    const stderrLines = (text: string, final: boolean): void => {
      const all = stderrRest + text;
      const lines = all.split("\n");
      stderrRest = final ? "" : (lines.pop() as string);
      for (const line of lines) {
        const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
        if (clean === "") continue;
        ours({
          type: "notice",
          kind: "stderr",
          level: "info",
          text:
            clean.length > STDERR_LINE_CHARS
              ? `${clean.slice(0, STDERR_LINE_CHARS)}… (${clean.length - STDERR_LINE_CHARS} more characters in the stderr log)`
              : clean,
        });
      }
    };

    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(ticker);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      stderrLines(stderrDecoder.decode(), true);
      reader.end();
      const outcome = describeEnd(exit, spawnError, ending, command);
      if (outcome.error !== undefined) ours(outcome.error);
      else if (exit !== undefined) {
        ours({
          type: "notice",
          kind: "exit",
          level: "info",
          text: exit.signal !== null ? `the agent was ended by ${exit.signal}` : `the agent exited with code ${exit.code}`,
          details: { exitCode: exit.code, signal: exit.signal },
        });
      }
      const incompleteReason = sawResult
        ? undefined
        : incompleteBecause(
            outcome.end,
            exit,
            ending,
            issues.some((i) => i.code === "truncated-tail" || i.code === "no-final-newline"),
          );
      if (incompleteReason !== undefined && spawnError === undefined) {
        ours({
          type: "notice",
          kind: "incomplete",
          level: "warning",
          text: `the stream ended without the agent's final record: ${incompleteReason}`,
        });
      }
      const runResult: RunResult = {
        runId,
        exitCode: outcome.exitCode,
        end: outcome.end,
        agentExitCode: exit?.code ?? null,
        agentSignal: exit?.signal ?? null,
        complete: sawResult,
        ...(incompleteReason === undefined ? {} : { incompleteReason }),
        dialect: reader.dialect,
        summary: summary.result(reader.stats, reader.dialect, reader.health),
        stats: reader.stats,
        health: reader.health,
        issues,
        redactions: reader.redactions,
        stdoutBytes,
        stderrBytes,
        durationMs: Date.now() - started,
        ...(logs === undefined ? {} : { logs: logs.files }),
      };
      const closed = logs?.close(runResult) ?? Promise.resolve();
      closed.then(
        () => {
          queue.close();
          resolve(runResult);
        },
        (error: unknown) => {
          // The logs could not be written (a full disk): the caller's environment, not the agent.
          queue.close();
          const reason = error instanceof Error ? error.message : String(error);
          reject(new AgentStreamError("io", `cannot write the run's logs in ${options.log}: ${reason}`, { cause: error }));
        },
      );
    };

    const pipeClosed = (): void => {
      openPipes--;
      if (openPipes === 0 && exit !== undefined) finish();
    };

    try {
      child = spawn(command, [...args], {
        cwd: options.cwd,
        env: (options.env ?? process.env) as NodeJS.ProcessEnv,
        stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
        detached: true, // its own process group: signals reach the agent and everything it started
      });
    } catch (error) {
      // Synchronous failures (a bad cwd type, a NUL in an argument): reported like ENOENT.
      spawnError = error as NodeJS.ErrnoException;
      queueMicrotask(finish);
      return;
    }
    const stdout = child.stdout as NonNullable<ChildProcess["stdout"]>;
    const stderr = child.stderr as NonNullable<ChildProcess["stderr"]>;
    stdout.on("data", (chunk: Buffer) => {
      // The audit copy first: what we have read is on disk before we parse it.
      logs?.raw(chunk);
      stdoutBytes += chunk.length;
      activity();
      reader.feed(chunk);
      logs?.flush(chunk.length);
    });
    stderr.on("data", (chunk: Buffer) => {
      logs?.stderr(chunk);
      stderrBytes += chunk.length;
      activity();
      stderrLines(stderrDecoder.decode(chunk, { stream: true }), false);
    });
    stdout.on("close", pipeClosed);
    stderr.on("close", pipeClosed);
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (child?.pid !== undefined) return; // a failed kill, not a failed start
      spawnError = error;
      finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (openPipes === 0) return finish();
      // The agent is gone but something it started still holds its stdout: read on for a while, then end the group.
      const drainMs = options.drainMs ?? 2000;
      const checkLeftovers = (): void => {
        if (consumerBehind || logsBehind) {
          drainTimer = setTimeout(checkLeftovers, drainMs);
          return;
        }
        ours({
          type: "notice",
          kind: "leftover-processes",
          level: "warning",
          text: `processes started by the agent kept its output open ${formatMs(drainMs)} after it exited: ending its process group`,
        });
        terminate();
        // Whatever still holds the pipes after SIGKILL (a process outside the group) is not waited for.
        drainTimer = setTimeout(() => {
          stdout.destroy();
          stderr.destroy();
        }, killAfterMs + 500);
      };
      drainTimer = setTimeout(checkLeftovers, drainMs);
    });
  });

  function onAbort(): void {
    terminate();
  }
  if (options.signal?.aborted === true) queueMicrotask(onAbort);
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  return {
    runId,
    get pid() {
      return child?.pid;
    },
    events: queue,
    result,
    kill(signal = "SIGTERM") {
      signalGroup(signal);
    },
  };
}

/** Opens the run's logs; a folder that cannot be written is the caller's mistake, said before anything starts. */
function openLogs(dir: string, runId: string, flow: RunLogFlow): RunLogs {
  try {
    return openRunLogs(dir, runId, flow);
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

function newRunId(): string {
  return `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}
