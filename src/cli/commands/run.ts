import { AgentStreamError, formatIssue } from "../../errors.ts";
import type { AgentEvent } from "../../model/events.ts";
import { createTerminalRenderer, type Verbosity } from "../../render/create-terminal-renderer.ts";
import { runAgent, type AgentRun, type RunResult } from "../../run/run-agent.ts";
import { parseDuration } from "../../run/_duration.ts";
import { getOutputFormat, outputFormats } from "../../serialize/index.ts";
import type { Command } from "../command.ts";
import type { CliIo } from "../io.ts";
import { describeRedactions, toReadOptions } from "../_input.ts";
import { chooseMode } from "./render.ts";

export const run: Command = {
  name: "run",
  summary: "run an agent CLI: live view, heartbeats, timeouts, signals, logs, exit code",
  help: `Usage: agentstream run [options] -- <agent> [args ...]

Runs the agent (no shell, in its own process group), reads its output as it comes and shows it
(or writes it in another format), with heartbeats while it is silent, idle and overall timeouts,
signals forwarded, optional logs, and the agent's exit code. The agent's stderr becomes events
(shown dimmed), never mixed into stdout. The dialect comes from the command name (claude, codex,
gemini, opencode, cursor-agent, amp, qwen, cline, aider), else from the stream.

Options:
  --from <dialect>         the agent's output dialect (default: from the command name, else auto)
  --stream-json            write the Codex-style lifecycle (codex-thread NDJSON) instead of the view
  --to <format>            write this format instead of the view; one of: ${outputFormats.map((f) => f.name).join(", ")}
  --final-summary          after the stream, print the run's summary as pretty JSON
  --json                   print only the summary as JSON (docs/run.md)
  --heartbeat <dur>        a heartbeat event after this much silence (default 15s; 0: none)
  --idle-timeout <dur>     end a silent agent (never while a tool call runs): exit 124
  --timeout <dur>          end the run after this long: exit 124
  --kill-after <dur>       after forwarding a signal, SIGKILL this much later (default: only a second Ctrl-C)
  --stdin                  pass our stdin to the agent even when it is a terminal (a pipe or file
                           is always passed; Codex appends piped stdin to its prompt)
  --log <dir>              keep this run's logs there (default: $AGENTSTREAM_LOG_DIR, else none)
  --mode <mode>            view: full | basic | none (default: from the terminal and NO_COLOR)
  --width <n>              view: fit one-line slots to n columns
  -q, --quiet              view: answers, tool calls, errors and the footer only
  -v, --verbose            view: also notices, repairs, unknown records
  --include-raw            attach each source record to its events as "raw"
  --no-repair              no snapshot/duplicate repair (docs/repair.md)
  --no-redact              show secrets as they are; by default they are replaced with
                           [REDACTED:<kind>] in the output and the events logs (docs/redaction.md);
                           the raw and stderr logs are never redacted (docs/run.md)

Durations: 500ms, 15s, 2m, 1h (a bare number is seconds).
Exit status: the agent's, 128+n when signal n ended it, 124 timeout or idle timeout, 126 not
executable, 127 command not found, 2 usage error.

Examples:
  agentstream run -- claude -p "fix the tests" --output-format stream-json --verbose
  agentstream run --stream-json --final-summary -- codex exec --json "add a README" < /dev/null
  agentstream run --idle-timeout 10m --log ~/.agentstream/runs -- gemini -p "..." -o stream-json`,
  options: {
    from: { type: "string" },
    "stream-json": { type: "boolean", default: false },
    to: { type: "string" },
    "final-summary": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    heartbeat: { type: "string", default: "15s" },
    "idle-timeout": { type: "string" },
    timeout: { type: "string" },
    "kill-after": { type: "string" },
    stdin: { type: "boolean", default: false },
    log: { type: "string" },
    mode: { type: "string" },
    width: { type: "string" },
    quiet: { type: "boolean", short: "q", default: false },
    verbose: { type: "boolean", short: "v", default: false },
    "include-raw": { type: "boolean", default: false },
    "no-repair": { type: "boolean", default: false },
    "no-redact": { type: "boolean", default: false },
  },
  async run(values, positionals, io) {
    const [command, ...args] = positionals;
    if (command === undefined) throw new AgentStreamError("usage", 'name the agent to run after --: agentstream run -- claude -p "..."');
    const duration = (flag: string): number | undefined =>
      values[flag] === undefined ? undefined : parseDuration(`--${flag}`, String(values[flag]));
    const killAfterMs = duration("kill-after");
    const sink = createSink(values, io);
    const agent = runAgent(command, args, {
      ...(values.from === undefined ? {} : { dialect: String(values.from) }),
      heartbeatMs: duration("heartbeat") ?? 15_000,
      idleTimeoutMs: duration("idle-timeout") ?? 0,
      timeoutMs: duration("timeout") ?? 0,
      stdin: io.stdin.isTTY === true && values.stdin !== true ? "ignore" : "inherit",
      read: toReadOptions({
        "include-raw": values["include-raw"] === true,
        "no-repair": values["no-repair"] === true,
        "no-redact": values["no-redact"] === true,
      }),
      ...logOption(values, io),
      onIssue(issue) {
        if (values.quiet !== true && (issue.severity !== "info" || values.verbose === true))
          void io.stderr.write(`${formatIssue(issue, agentName(command))}\n`);
      },
    });
    if (values["no-redact"] === true)
      void io.stderr.write(
        "agentstream: --no-redact: secrets in the agent's output (API keys, tokens, passwords) will be shown as they are\n",
      );
    const stopForwarding = forwardSignals(agent, killAfterMs);
    try {
      for await (const event of agent.events) await sink.event(event);
      const result = await agent.result;
      await sink.end(runReport(result));
      const redacted = describeRedactions(result.redactions);
      if (redacted !== undefined && values.quiet !== true)
        await io.stderr.write(`${agentName(command)}: ${redacted}; --no-redact shows them\n`);
      return result.exitCode;
    } finally {
      stopForwarding();
    }
  },
};

/** How diagnostics name the agent's output: its command's file name. */
function agentName(command: string): string {
  return command.split(/[\\/]/).pop() ?? command;
}

interface Sink {
  event(event: AgentEvent): void | Promise<void>;
  end(summary: unknown): Promise<void>;
}

/** Where the events go: the terminal view, a writer, or only the summary. */
function createSink(values: Record<string, unknown>, io: CliIo): Sink {
  const finalSummary = values["final-summary"] === true;
  const out = batchedStdout(io);
  const printSummary = async (summary: unknown): Promise<void> => {
    await out.write(`${JSON.stringify(summary, null, 2)}\n`);
    await out.flush();
  };
  if (values.json === true) return { event: (event) => echoToStderr(event, values, io), end: printSummary };
  const formatName = values["stream-json"] === true ? "codex-thread" : (values.to as string | undefined);
  if (formatName !== undefined) {
    const format = getOutputFormat(formatName);
    // codex-thread writes the dev-agent final report itself; other writers get the summary after them.
    const writerSummary = finalSummary && format.name === "codex-thread";
    const writer = format.create({ finalSummary: writerSummary });
    return {
      async event(event) {
        await echoToStderr(event, values, io);
        await out.write(writer.write(event));
      },
      async end(summary) {
        await out.write(writer.end());
        await out.flush();
        if (finalSummary && !writerSummary) await printSummary(summary);
      },
    };
  }
  const verbosity: Verbosity = values.verbose === true ? "verbose" : values.quiet === true ? "quiet" : "normal";
  let width = io.stdout.columns ?? 80;
  if (values.width !== undefined) {
    width = Number(values.width);
    if (!Number.isInteger(width) || width < 20)
      throw new AgentStreamError("usage", `--width takes a whole number of columns, at least 20, not "${String(values.width)}"`);
  }
  let rendered: string[] = [];
  const renderer = createTerminalRenderer({
    write: (text) => rendered.push(text),
    mode: chooseMode(values.mode as string | undefined, io),
    width,
    verbosity,
  });
  const take = (): string => {
    const text = rendered.join("");
    rendered = [];
    return text;
  };
  return {
    async event(event) {
      renderer.render(event);
      await out.write(take());
    },
    async end(summary) {
      renderer.end();
      await out.write(take());
      await out.flush();
      if (finalSummary) await printSummary(summary);
    },
  };
}

/**
 * Stdout for a live stream: what the events of one turn of the event loop produced goes out in one
 * write (an agent's burst is not a write per event), and a megabyte waiting waits for the reader.
 */
function batchedStdout(io: CliIo): { write(text: string): Promise<void>; flush(): Promise<void> } {
  let pending: string[] = [];
  let size = 0;
  let scheduled = false;
  const flush = async (): Promise<void> => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    size = 0;
    await io.stdout.write(text);
  };
  return {
    async write(text) {
      if (text === "") return;
      pending.push(text);
      size += text.length;
      if (size > 1 << 20) return flush();
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => void flush());
      }
    },
    flush,
  };
}

/**
 * The summary `--json` and `--final-summary` print: the session's facts (as \`agentstream summary
 * --json\`) and how the run went (docs/run.md).
 */
function runReport(result: RunResult): object {
  return {
    ...result.summary,
    run: {
      runId: result.runId,
      exitCode: result.exitCode,
      end: result.end,
      agentExitCode: result.agentExitCode,
      agentSignal: result.agentSignal,
      complete: result.complete,
      incompleteReason: result.incompleteReason ?? null,
      durationMs: result.durationMs,
      stdoutBytes: result.stdoutBytes,
      stderrBytes: result.stderrBytes,
      redactions: result.redactions,
      logs: result.logs ?? null,
    },
  };
}

/** Without the view, the agent's stderr and our own errors still reach a person: on our stderr. */
async function echoToStderr(event: AgentEvent, values: Record<string, unknown>, io: CliIo): Promise<void> {
  if (values.quiet === true) return;
  if (event.type === "notice" && (event.kind === "stderr" || event.kind === "incomplete" || event.kind === "leftover-processes")) {
    await io.stderr.write(`${event.kind === "stderr" ? "" : "agentstream run: "}${event.text}\n`);
  } else if (event.type === "error" && event.source?.line === undefined && event.fatal === true) {
    await io.stderr.write(`agentstream run: ${event.message}\n`);
  }
}

function logOption(values: Record<string, unknown>, io: CliIo): { log?: string } {
  const dir = (values.log as string | undefined) ?? io.env.AGENTSTREAM_LOG_DIR;
  return dir === undefined || dir === "" ? {} : { log: dir };
}

/**
 * SIGINT, SIGTERM and SIGHUP go to the agent's process group; a second one (or --kill-after) sends
 * SIGKILL. Returns the function that removes the handlers.
 */
function forwardSignals(agent: AgentRun, killAfterMs: number | undefined): () => void {
  let received = 0;
  let killTimer: NodeJS.Timeout | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    received++;
    if (received > 1) {
      agent.kill("SIGKILL");
      return;
    }
    agent.kill(signal);
    if (killAfterMs !== undefined) killTimer = setTimeout(() => agent.kill("SIGKILL"), killAfterMs);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
    if (killTimer !== undefined) clearTimeout(killTimer);
  };
}
