import { AgentStreamError } from "../../errors.ts";
import type { AgentEvent } from "../../model/events.ts";
import { newRunId, runAgentHolding, type AgentRun, type RunResult } from "../../run/run-agent.ts";
import type { HeldStrings } from "../../framing/held-strings.ts";
import { promptOfCommand } from "../../run/prompt-of-command.ts";
import type { RunFacts } from "../../encoding/record-encoder.ts";
import { parseDuration } from "../../run/duration.ts";
import { getOutputFormat, outputFormats } from "../../output-formats.ts";
import { defineCommand, type ParsedValues } from "../args.ts";
import { createDiagnostics, describeRedactions } from "../diagnostics.ts";
import type { CliIo } from "../io.ts";
import { viewVerbosity, viewWidth } from "../view-options.ts";
import { createLiveOutput, type LiveOutput } from "../output.ts";
import { readingDefaults, toReadOptions } from "../reading-options.ts";
import { createRecordSink } from "../sinks/record-sink.ts";
import { createRendererSink } from "../sinks/renderer-sink.ts";
import { chooseMode } from "./render.ts";
import { parsePort, warnIfExposed } from "./serve.ts";
import { loadWebAssets, type WebAssets } from "../../server/assets.ts";
import { createCatalog } from "../../server/catalog.ts";
import { startServer } from "../../server/http-server.ts";
import { SessionFeed } from "../../server/session-feed.ts";
import { registerRun, registryDir, type RegisteredRun } from "../../server/registry.ts";
import type { Publisher, PublishReport } from "../../fleet/publisher.ts";
import { natsConnectionOptions, publishingOptions, requireServers, toPublisherOptions } from "../fleet-options.ts";
import { describePublishReport } from "../sinks/publisher-sink.ts";
import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import type { LiveExport } from "../../otel/exporter.ts";
import { describeExport, type ExportReport } from "../../otel/report.ts";

const runOptions = {
  from: { type: "string", valueHint: "<dialect>", description: "the agent's output dialect (default: from the command name, else auto)" },
  "stream-json": {
    type: "boolean",
    default: false,
    description: "write the Codex-style lifecycle (codex-thread NDJSON) instead of the view",
  },
  to: {
    type: "string",
    valueHint: "<format>",
    description: `write this format instead of the view; one of: ${outputFormats.map((f) => f.name).join(", ")}`,
  },
  "final-summary": { type: "boolean", default: false, description: "after the stream, print the run's summary as pretty JSON" },
  task: {
    type: "string",
    valueHint: "<text>",
    description: "the task, for --stream-json's thread.started.task (default: the prompt the agent's command line names)",
  },
  json: { type: "boolean", default: false, description: "print only the summary as JSON (docs/run.md)" },
  heartbeat: {
    type: "string",
    default: "15s",
    valueHint: "<dur>",
    description: "a heartbeat event after this much silence (default 15s; 0: none)",
  },
  "idle-timeout": { type: "string", valueHint: "<dur>", description: "end a silent agent (never while a tool call runs): exit 124" },
  timeout: { type: "string", valueHint: "<dur>", description: "end the run after this long: exit 124" },
  "kill-after": {
    type: "string",
    valueHint: "<dur>",
    description: "after forwarding a signal, SIGKILL this much later (default: only a second Ctrl-C)",
  },
  stdin: {
    type: "boolean",
    default: false,
    description:
      "pass our stdin to the agent even when it is a terminal (a pipe or file is always passed; Codex appends piped stdin to its prompt)",
  },
  log: { type: "string", valueHint: "<dir>", description: "keep this run's logs there (default: $AGENTSTREAM_LOG_DIR, else none)" },
  serve: {
    type: "boolean",
    default: false,
    description: "also show the run on a local web page while it goes on: prints its URL on stderr (docs/web.md)",
  },
  // Not --host: that one names the machine in published subjects (--publish).
  "serve-host": {
    type: "string",
    default: "127.0.0.1",
    valueHint: "<addr>",
    description: "with --serve: the address to listen on (default 127.0.0.1)",
  },
  "serve-port": { type: "string", default: "0", valueHint: "<n>", description: "with --serve: the port (default 0: any free one)" },
  mode: {
    type: "string",
    valueHint: "<mode>",
    choices: ["full", "basic", "none"],
    description: "view: full | basic | none (default: from the terminal and NO_COLOR)",
  },
  width: { type: "string", valueHint: "<n>", description: "view: fit one-line slots to n columns" },
  quiet: { type: "boolean", short: "q", default: false, description: "view: answers, tool calls, errors and the footer only" },
  verbose: { type: "boolean", short: "v", default: false, description: "view: also notices, repairs, unknown records" },
  "include-raw": { type: "boolean", default: false, description: 'attach each source record to its events as "raw"' },
  "no-repair": { type: "boolean", default: false, description: "no snapshot/duplicate repair (docs/repair.md)" },
  "no-redact": {
    type: "boolean",
    default: false,
    description:
      "show secrets as they are; by default they are replaced with [REDACTED:<kind>] in the output and the events logs (docs/redaction.md); the raw and stderr logs are never redacted (docs/run.md)",
  },
  publish: {
    type: "string",
    valueHint: "<nats-url>",
    description: "also publish every event (redacted) to NATS JetStream; the options below apply (docs/fleet.md)",
  },
  ...publishingOptions,
  ...natsConnectionOptions,
  otlp: {
    type: "string",
    valueHint: "<endpoint>",
    description:
      "also export the run as OpenTelemetry GenAI traces (OTLP/HTTP), each span as it ends; OTEL_EXPORTER_OTLP_* apply (docs/otel.md)",
  },
  "capture-content": {
    type: "boolean",
    default: false,
    description: "with --otlp: also send prompts, answers, tool arguments and results (after redaction)",
  },
} as const;

type RunValues = ParsedValues<typeof runOptions>;

export const run = defineCommand({
  name: "run",
  summary: "run an agent CLI: live view, heartbeats, timeouts, signals, logs, exit code",
  usage: "run [options] -- <agent> [args ...]",
  description: `Runs the agent (no shell, in its own process group), reads its output as it comes and shows it
(or writes it in another format), with heartbeats while it is silent, idle and overall timeouts,
signals forwarded, optional logs, and the agent's exit code. The agent's stderr becomes events
(shown dimmed), never mixed into stdout. The dialect comes from the command name (claude, codex,
gemini, opencode, cursor-agent, amp, qwen, cline, aider), else from the stream.`,
  options: runOptions,
  epilog: `Durations: 500ms, 15s, 2m, 1h (a bare number is seconds).
Exit status: the agent's, 128+n when signal n ended it, 124 timeout or idle timeout, 126 not
executable, 127 command not found, 2 usage error.`,
  examples: [
    'agentstream run -- claude -p "fix the tests" --output-format stream-json --verbose',
    'agentstream run --stream-json --final-summary -- codex exec --json "add a README" < /dev/null',
    'agentstream run --idle-timeout 10m --log ~/.agentstream/runs -- gemini -p "..." -o stream-json',
  ],
  async run({ values, positionals, io }) {
    const [command, ...args] = positionals;
    if (command === undefined) throw new AgentStreamError("usage", 'name the agent to run after --: agentstream run -- claude -p "..."');
    const duration = (flag: "heartbeat" | "idle-timeout" | "timeout" | "kill-after"): number | undefined => {
      const value = values[flag];
      return value === undefined ? undefined : parseDuration(`--${flag}`, value);
    };
    const killAfterMs = duration("kill-after");
    const readers = outliveReaders(values, io);
    // The writers know what the run knows beyond the stream: its id and its task (docs/run.md).
    const runId = newRunId();
    const sink = createRunSink(values, io, readers, { runId, ...definedTask(values.task ?? promptOfCommand(command, args)) });
    const diagnostics = createDiagnostics(io.stderr);
    // Before the agent starts: a missing web build is said at once, not after the agent has begun.
    const assets = values.serve ? loadWebAssets() : undefined;
    const publishing = await createRunPublisher(values, io, command, () => agent.runId);
    const otlp = await createRunExport(values, io, runId);
    const onEvent =
      publishing === undefined && otlp === undefined
        ? undefined
        : (event: AgentEvent): void => {
            publishing?.publisher.event(event);
            otlp?.add(event);
          };
    const agent: AgentRun = startAgent(publishing, () =>
      runAgentHolding(
        command,
        args,
        {
          runId,
          ...(values.from === undefined ? {} : { dialect: values.from }),
          heartbeatMs: duration("heartbeat") ?? 15_000,
          idleTimeoutMs: duration("idle-timeout") ?? 0,
          timeoutMs: duration("timeout") ?? 0,
          stdin: io.stdin.isTTY === true && !values.stdin ? "ignore" : "inherit",
          read: {
            ...toReadOptions({
              ...readingDefaults,
              "include-raw": values["include-raw"] || copiesOwnRecords(values),
              "no-repair": values["no-repair"],
              "no-redact": values["no-redact"],
            }),
          },
          ...logOption(values, io),
          // The view shows the totals only: the summary's list of tool calls is read by --json and --final-summary (and the logs).
          listToolCalls: values.json || values["final-summary"],
          ...(onEvent === undefined ? {} : { onEvent }),
          onIssue(issue) {
            if (!values.quiet && (issue.severity !== "info" || values.verbose)) diagnostics.issue(issue, agentName(command));
          },
        },
        splicesOutputs(values) ? sink.heldStrings : undefined,
      ),
    );
    if (values["no-redact"])
      void io.stderr.write(
        "agentstream: --no-redact: secrets in the agent's output (API keys, tokens, passwords) will be shown as they are\n",
      );
    const stopForwarding = forwardSignals(agent, killAfterMs);
    const page = assets === undefined ? undefined : await serveRun(agent.runId, agentName(command), assets, values, io);
    let published: PublishReport | undefined;
    let exported: ExportReport | undefined;
    try {
      for await (const event of agent.events) {
        page?.feed.push(event);
        const behind = sink.event(event);
        if (behind !== undefined) await behind;
      }
      const result = await agent.result;
      await diagnostics.summarize();
      await page?.end();
      published = await publishing?.publisher.close(publishing.flushTimeoutMs);
      if (published !== undefined && (!values.quiet || published.dropped > 0 || published.waiting > 0))
        await io.stderr.write(`agentstream run: ${describePublishReport(published)}\n`);
      exported = await otlp?.close(OTLP_CLOSE_MS);
      if (exported !== undefined && (!values.quiet || exported.dropped > 0 || exported.rejected > 0))
        await io.stderr.write(`agentstream run: otlp: ${sanitizeForTerminal(describeExport(exported), { keepNewlines: false })}\n`);
      await sink.end(runReport(result, published, exported));
      const redacted = describeRedactions(result.redactions);
      if (redacted !== undefined && !values.quiet) await diagnostics.say(`${agentName(command)}: ${redacted}; --no-redact shows them`);
      return result.exitCode;
    } finally {
      stopForwarding();
      readers.release();
      await page?.end();
      // The run failed before the end (its logs could not be written): what waits stays in the spool.
      if (publishing !== undefined && published === undefined) await publishing.publisher.close(0);
      if (otlp !== undefined && exported === undefined) await otlp.close(0);
    }
  },
});

/** `--serve`: this run's own server, its one session fed with the run's (redacted) events. */
async function serveRun(
  runId: string,
  command: string,
  assets: WebAssets,
  values: RunValues,
  io: CliIo,
): Promise<{ feed: SessionFeed; end(): Promise<void> }> {
  const feed = new SessionFeed(runId, { file: null, live: true });
  const catalog = await createCatalog({ paths: [], read: {} });
  catalog.add(feed);
  const server = await startServer({ catalog, assets, host: values["serve-host"], port: parsePort(values["serve-port"]) });
  warnIfExposed(values["serve-host"], io);
  const unregister = announce({ runId, pid: process.pid, origin: server.origin, token: server.token, command }, io);
  await io.stderr.write(`agentstream run: watch it at ${server.url}\n`);
  let ended: Promise<void> | undefined;
  return {
    feed,
    end() {
      ended ??= (async () => {
        feed.end();
        unregister();
        // The viewers' streams end themselves once they have the last event; give them a moment to read it.
        for (let waited = 0; server.viewers() > 0 && waited < SERVE_DRAIN_MS; waited += 50) await sleep(50);
        await server.close();
      })();
      return ended;
    },
  };
}

/** `agentstream serve` on this machine finds the run in the registry and lists it (docs/web.md); not being found is no reason to fail the run. */
function announce(run: RegisteredRun, io: CliIo): () => void {
  try {
    return registerRun(registryDir(io.env), run);
  } catch (error) {
    void io.stderr.write(
      `agentstream run: agentstream serve will not list this run: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return () => {};
  }
}

/** How long `run --serve` waits, after the run, for its viewers to read the end of the stream. */
const SERVE_DRAIN_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `--publish <url>`: a publisher fed every event of the run (the agent never waits for it). The
 * NATS client is loaded here, only then: `run` without `--publish` never loads it.
 */
async function createRunPublisher(
  values: RunValues,
  io: CliIo,
  command: string,
  runId: () => string,
): Promise<{ publisher: Publisher; flushTimeoutMs: number } | undefined> {
  const url = values.publish;
  if (url === undefined) return undefined;
  if (values["no-redact"])
    throw new AgentStreamError("usage", "--no-redact with --publish: published events are always redacted (the stream is shared)");
  const servers = requireServers("run --publish", url);
  const flushTimeoutMs = parseDuration("--flush-timeout", values["flush-timeout"]);
  const say = (text: string): void => {
    if (!values.quiet) void io.stderr.write(`agentstream run: ${text}\n`);
  };
  const options = toPublisherOptions(servers, values, io, say);
  const { createPublisher } = await import("../../fleet/publisher.ts");
  const publisher = createPublisher(options, () => ({
    agent: agentName(command),
    fallbackSession: () => runId(),
  }));
  return { publisher, flushTimeoutMs };
}

/** How long the end of a run waits for its last spans to be sent: a down endpoint never holds the exit long. */
const OTLP_CLOSE_MS = 5000;

/**
 * `--otlp <endpoint>`: the run's events mapped to spans, each exported as it ends (docs/otel.md). The exporter is
 * loaded here, only then. Events are redacted before they get here unless --no-redact, which --otlp refuses.
 */
async function createRunExport(values: RunValues, io: CliIo, runId: string): Promise<LiveExport | undefined> {
  if (values.otlp === undefined) return undefined;
  if (values["no-redact"]) throw new AgentStreamError("usage", "--no-redact with --otlp: exported spans are always redacted");
  const { otlpExportConfig, resourceAttributesFromEnv, latestConventionsOnly } = await import("../../otel/config.ts");
  const { createLiveExport } = await import("../../otel/exporter.ts");
  const { resourceOf } = await import("../../formats/otlp/encode.ts");
  const { summaryFacts } = await import("../../otel/facts.ts");
  const config = otlpExportConfig({ endpoint: values.otlp }, io.env);
  return createLiveExport(config, resourceOf(resourceAttributesFromEnv(io.env)), {
    captureContent: values["capture-content"],
    latestConventionsOnly: latestConventionsOnly(io.env),
    fallbackSessionId: runId,
    sessionFacts: summaryFacts,
  });
}

/** Starts the agent; when that fails at once (a bad option), the publisher is closed so the process can end. */
function startAgent(publishing: { publisher: Publisher } | undefined, start: () => AgentRun): AgentRun {
  try {
    return start();
  } catch (error) {
    void publishing?.publisher.close(0);
    throw error;
  }
}

/** How diagnostics name the agent's output: its command's file name. */
function agentName(command: string): string {
  return command.split(/[\\/]/).pop() ?? command;
}

/** Where a run's events go: one of the CLI's sinks over live output, and the run's report at the end. */
interface RunSink {
  /** The record sink's held strings (`--to agentstream`): the run's reader holds long tool outputs there. */
  readonly heldStrings?: HeldStrings;
  /** A promise only when the event must be waited for (stdout or stderr is behind): most events cost no await. */
  event(event: AgentEvent): Promise<void> | undefined;
  end(report: object): Promise<void>;
}

/** Whether stdout is still read, and the function that stops listening for its reader going away. */
interface Readers {
  stdoutOpen(): boolean;
  release(): void;
}

/**
 * The run outlives its readers: when stdout's reader goes away (`run … | head -5`), nothing more is written there
 * and the agent runs on to its end, its logs and summary complete, its exit code ours (docs/run.md). A closed
 * stderr is ignored the same way.
 */
function outliveReaders(values: RunValues, io: CliIo): Readers {
  let open = true;
  const releaseStdout = io.stdout.onClosed?.(() => {
    open = false;
    if (!values.quiet)
      void io.stderr.write(
        "agentstream run: stdout was closed: the agent runs on to its end (Ctrl-C ends it); nothing more is written there\n",
      );
  });
  const releaseStderr = io.stderr.onClosed?.(() => {});
  return {
    stdoutOpen: () => open,
    release() {
      releaseStdout?.();
      releaseStderr?.();
    },
  };
}

function definedTask(task: string | undefined): { task?: string } {
  return task === undefined ? {} : { task };
}

/** The terminal view (the renderer sink), a format (the record sink), or only the report (`--json`). */
function createRunSink(values: RunValues, io: CliIo, readers: Readers, run: RunFacts): RunSink {
  const output = createLiveOutput(io.stdout);
  const printReport = async (report: object): Promise<void> => {
    output.write(`${JSON.stringify(report, null, 2)}\n`);
    await output.flush();
  };
  if (values.json) return { event: (event) => echoToStderr(event, values, io), end: printReport };
  const formatName = values["stream-json"] ? "codex-thread" : values.to;
  if (formatName !== undefined) return formatRunSink(formatName, values, io, output, printReport, run);
  const sink = createRendererSink(
    { mode: chooseMode(values.mode, io), width: viewWidth(values.width, io), verbosity: viewVerbosity(values) },
    output,
  );
  // A person watching the view on the terminal that is also our stderr reads the errors there; anyone else (a
  // script reading stderr, a view written to a file or a pipe) gets our errors on stderr too.
  const viewIsWatched = io.stdout.isTTY && io.stderr.isTTY;
  return {
    event(event) {
      // Once stdout's reader is gone, what reaches a person goes to stderr, as without the view.
      const echoed = !readers.stdoutOpen() ? echoToStderr(event, values, io) : viewIsWatched ? undefined : echoOurError(event, io);
      sink.event(event, "agent");
      return both(echoed, output.settle());
    },
    async end(report) {
      await sink.end([]);
      await output.flush();
      if (values["final-summary"]) await printReport(report);
    },
  };
}

/**
 * Whether every consumer of the run's events splices held strings (record-sink.ts):
 * `--to agentstream` on stdout (and the logs), with no page (`--serve`) or publisher needing the text.
 */
function splicesOutputs(values: RunValues): boolean {
  return values.to === "agentstream" && !values["stream-json"] && !values.json && !values.serve && values.publish === undefined;
}

/** A writer that copies its own format's records through (witness → witness) needs each event's record, as in `convert`. */
function copiesOwnRecords(values: RunValues): boolean {
  return values.to !== undefined && !values["stream-json"] && getOutputFormat(values.to).copiesOwnRecords === true;
}

function formatRunSink(
  formatName: string,
  values: RunValues,
  io: CliIo,
  output: LiveOutput,
  printReport: (report: object) => Promise<void>,
  run: RunFacts,
): RunSink {
  const format = getOutputFormat(formatName);
  // codex-thread writes the dev-agent final report itself; other writers get the summary after them.
  const writerSummary = values["final-summary"] && format.name === "codex-thread";
  const sink = createRecordSink(format, { finalSummary: writerSummary, run }, output);
  return {
    ...(sink.heldStrings === undefined ? {} : { heldStrings: sink.heldStrings }),
    event(event) {
      const echoed = echoToStderr(event, values, io);
      sink.event(event, "agent");
      return both(echoed, output.settle());
    },
    async end(report) {
      await sink.end([]);
      await output.flush();
      if (values["final-summary"] && !writerSummary) await printReport(report);
    },
  };
}

/**
 * The summary `--json` and `--final-summary` print: the session's facts (as \`agentstream summary
 * --json\`) and how the run went (docs/run.md).
 */
function runReport(result: RunResult, published: PublishReport | undefined, exported: ExportReport | undefined): object {
  return {
    ...result.summary,
    ...(published === undefined ? {} : { publish: published }),
    ...(exported === undefined ? {} : { otlp: exported }),
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

/**
 * Without the view, the agent's stderr and our own notices and errors still reach a person: on our stderr, through
 * the terminal sanitizer (an agent's stderr line may hold escape sequences: only colours are kept, on a terminal).
 * `-q` keeps the errors.
 */
function echoToStderr(event: AgentEvent, values: RunValues, io: CliIo): Promise<void> | undefined {
  if (values.quiet) return echoOurError(event, io);
  if (event.type === "notice" && (event.kind === "stderr" || event.kind === "incomplete" || event.kind === "leftover-processes")) {
    const text = sanitizeForTerminal(event.text, { sgr: io.stderr.isTTY ? "keep" : "drop", keepNewlines: false });
    return pending(io.stderr.write(`${event.kind === "stderr" ? "" : "agentstream run: "}${text}\n`));
  }
  return echoOurError(event, io);
}

/** Our own fatal errors (the command not found, a timeout: no input line), as one line on stderr. */
function echoOurError(event: AgentEvent, io: CliIo): Promise<void> | undefined {
  if (event.type === "error" && event.source?.line === undefined && event.fatal === true)
    return pending(io.stderr.write(`agentstream run: ${sanitizeForTerminal(event.message, { keepNewlines: false })}\n`));
  return undefined;
}

/** A write's promise when it has one (the stream is behind), else undefined. */
function pending(written: void | Promise<void>): Promise<void> | undefined {
  return written instanceof Promise ? written : undefined;
}

/** Waits for whichever of two writes is pending (most events: neither, and no promise is made). */
function both(first: Promise<void> | undefined, second: Promise<void> | undefined): Promise<void> | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return Promise.all([first, second]).then(() => undefined);
}

function logOption(values: RunValues, io: CliIo): { log?: string } {
  const dir = values.log ?? io.env.AGENTSTREAM_LOG_DIR;
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
