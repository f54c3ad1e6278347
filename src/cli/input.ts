/**
 * The pipeline glue of every command that reads agent output: source → event reader → sink.
 * Prints diagnostics and the progress line, flushes the batched output after each chunk.
 */
import { AgentStreamError, isSecurityIssue, type Issue } from "../errors.ts";
import { createEventReaderFor, type EventReaderCallbacks, type ReadOptions } from "../pipeline/create-event-reader.ts";
import {
  createDiagnostics,
  createProgress,
  describeRedactions,
  describeUnreadable,
  type Diagnostics,
  redactedIssue,
  withCliHints,
} from "./diagnostics.ts";
import { primeReadingPath } from "../pipeline/prime-reading.ts";
import { createSseSniffer } from "./sse-sniffer.ts";
import { EXIT } from "./exit.ts";
import type { CliIo } from "./io.ts";
import type { BatchedOutput } from "./output.ts";
import { toReadOptions, type ReadingValues } from "./reading-options.ts";
import type { EndsOptions } from "../framing/ndjson/tool-output-ends.ts";
import type { InputRun, Sink } from "./sinks/sink.ts";
import { isRestart, type Source, type SourceChunk } from "./sources/source.ts";

/** Issues of severity warning or worse kept per input (memory stays flat on a long, broken stream). */
const KEPT_ISSUES = 1000;

/** What the pipeline reads, where the events go, and how. */
export interface PipelineOptions {
  readonly sources: readonly Source[];
  readonly io: CliIo;
  readonly reading: ReadingValues;
  readonly sink: Sink;
  /** Flushed after each chunk read and at the end of each input (batching + backpressure). */
  readonly output?: BatchedOutput;
  /** Awaited after each chunk of an input that can wait (not `live`): a sink slower than the reading holds it back. */
  readonly pace?: () => Promise<void>;
  /** Read an input whose first line is an SSE field as Server-Sent Events (validate --format). */
  readonly sniffSse?: boolean;
  /** What the events must carry (`summary`: the facts only; long tool outputs are skipped). */
  readonly fields?: "all" | "summary";
  /** For a view that shows only the ends of a long tool output: read only those (`ConsumerReading.toolOutputEnds`). */
  readonly toolOutputEnds?: EndsOptions;
  /** For a view: a run of deltas in one chunk as one event (`ConsumerReading.joinDeltas`). */
  readonly joinDeltas?: boolean;
  /** Where diagnostics go (sanitised, capped per code); one of the command's own when a sink prints issues too. Default: a fresh one on stderr. */
  readonly diagnostics?: Diagnostics;
  /**
   * Read the input as written, secrets included (validate checks what it was given: a redacted token would
   * fail its format's pattern). What is printed about it is still redacted unless --no-redact.
   */
  readonly unredacted?: boolean;
}

const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

/**
 * The pipeline: each source in turn → the event reader → the sink, printing diagnostics to stderr
 * as `file:line: code: message`. Calls `sink.end` after the last input and returns what each input
 * gave. I/O failures throw AgentStreamError with code `io`.
 */
export async function readInputs(options: PipelineOptions): Promise<InputRun[]> {
  const { sources, io, reading } = options;
  const diagnostics = options.diagnostics ?? createDiagnostics(io.stderr);
  const baseOptions = {
    ...toReadOptions(reading),
    fields: options.fields ?? "all",
    ...(options.unredacted === true ? { redact: false } : {}),
  };
  // Once per command, before its first source: the compile happens while the agent starts, not on its first line.
  if (sources.some((source) => source.live === true)) primeReadingPath({ redact: baseOptions.redact });
  if (reading["no-redact"])
    void io.stderr.write("agentstream: --no-redact: secrets in the input (API keys, tokens, passwords) will be shown as they are\n");
  if (sources.some((source) => source.interactive === true) && !reading.quiet) {
    // A terminal on stdin: without this line the command looks hung.
    await io.stderr.write("agentstream: reading agent output from the terminal; pipe it in or name a file (Ctrl-D ends the input)\n");
  }
  const runs: InputRun[] = [];
  for (const source of sources) {
    let chunks: AsyncIterator<SourceChunk> | undefined;
    let restart: Issue | undefined;
    try {
      do {
        // Opened when first read, inside readInput: a missing file fails as that input's I/O error.
        const read = await readInput(
          source,
          baseOptions,
          options,
          diagnostics,
          () => (chunks ??= source.chunks()[Symbol.asyncIterator]()),
          restart,
        );
        options.sink.endInput?.(read.run);
        runs.push(read.run);
        restart = read.restart;
        if (restart !== undefined) options.sink.inputRestarted?.(read.run);
      } while (restart !== undefined);
    } finally {
      await chunks?.return?.();
    }
  }
  await options.sink.end(runs);
  await options.output?.flush();
  await diagnostics.summarize();
  return runs;
}

/**
 * Reads one source through a fresh reader: to its end, or to a restart (a followed file truncated
 * or replaced), which is returned so the caller reads on from the same chunks with another reader.
 * `startIssue`: the restart this reading follows, reported first.
 */
async function readInput(
  source: Source,
  baseOptions: ReadOptions,
  options: PipelineOptions,
  diagnostics: Diagnostics,
  chunksOf: () => AsyncIterator<SourceChunk>,
  startIssue: Issue | undefined,
): Promise<{ run: InputRun; restart: Issue | undefined }> {
  const { io, reading, sink, output } = options;
  const name = source.name;
  const issues: Issue[] = [];
  let framing: ReturnType<typeof createSseSniffer> | undefined;
  // Read as SSE, records are numbered as the data lines fed to the reader: point back at the SSE line.
  const sseLine = (line: number | undefined): number | undefined =>
    line === undefined || line === 0 ? line : (framing?.lineOf(line) ?? line);
  const callbacks: EventReaderCallbacks = {
    onEvent(event) {
      const line = event.source?.line;
      const mapped = sseLine(line);
      sink.event(
        mapped === undefined || mapped === line || event.source === undefined
          ? event
          : { ...event, source: { ...event.source, line: mapped } },
        name,
      );
    },
    onSessionBoundary: (boundary) => sink.sessionBoundary?.(boundary, name),
  };
  const readOptions: ReadOptions = {
    ...baseOptions,
    file: name,
    onIssue(reported) {
      const line = sseLine(reported.line);
      report(line === reported.line || line === undefined ? reported : { ...reported, line });
    },
  };
  // A sink that splices held strings (the record sink's `--to agentstream`) has its reader hold them; a view reads
  // a long output as the lines it shows and a run of deltas as one text.
  const reader = createEventReaderFor(callbacks, readOptions, {
    held: sink.heldStrings,
    toolOutputEnds: options.toolOutputEnds,
    joinDeltas: options.joinDeltas === true,
  });
  // Read unredacted (validate), the diagnostics still never print a secret unless --no-redact.
  const printable = (issue: Issue): Issue => (options.unredacted === true && !reading["no-redact"] ? redactedIssue(issue) : issue);
  function report(issue: Issue): void {
    // Kept to decide the exit status; a bounded list says enough (the count is in the health report).
    if (issue.severity !== "info" && issues.length < KEPT_ISSUES) issues.push(issue);
    // A fatal issue is said once, in the line about the unreadable input; security issues ignore -q.
    const wanted = issue.severity !== "info" || reading.verbose;
    const shown = issue.severity !== "fatal" && (isSecurityIssue(issue) || (!reading.quiet && wanted));
    if (shown) diagnostics.issue(withCliHints(printable(issue)), name);
    sink.issue?.(issue, name);
  }
  if (startIssue !== undefined) report(startIssue);
  const progress =
    io.stderr.isTTY && !reading.quiet && source.size !== undefined && source.size > PROGRESS_MIN_BYTES
      ? createProgress(io, name, source.size)
      : undefined;
  framing = options.sniffSse === true ? createSseSniffer(reader) : undefined;
  let bytes = 0;
  let restart: Issue | undefined;
  try {
    const chunks = chunksOf();
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) {
      const chunk = next.value;
      if (isRestart(chunk)) {
        restart = chunk.restart;
        break;
      }
      bytes += chunk.length;
      if (framing === undefined) reader.feed(chunk);
      else framing.feed(chunk);
      progress?.advance(chunk.length);
      await output?.flush();
      if (source.live !== true) await options.pace?.();
    }
  } catch (cause) {
    progress?.clear();
    if (AgentStreamError.is(cause)) throw cause;
    throw ioError(name, cause);
  }
  framing?.end();
  reader.end();
  progress?.clear();
  const redacted = describeRedactions(reader.redactions);
  if (redacted !== undefined && !reading.quiet) void diagnostics.say(`${name}: ${redacted}; --no-redact shows them`);
  await output?.flush();
  // An SSE stream without data events was read; the command says what it found in it.
  const unreadable = framing?.lines() === undefined ? describeUnreadable(reader, issues, bytes, reading.from) : undefined;
  if (unreadable !== undefined && !reading.quiet) await diagnostics.say(`${name}: ${unreadable}`);
  return { run: { name, reader, issues, bytes, unreadable, sseLines: framing?.lines() }, restart };
}

/**
 * The exit status of a reading command: 4 when an input gave nothing readable, 1 when `--strict`
 * and an input had an issue of severity warning or worse, else 0.
 */
export function readingStatus(runs: readonly InputRun[], values: ReadingValues): number {
  if (runs.some((run) => run.unreadable !== undefined)) return EXIT.unreadable;
  const failed = values.strict && runs.some((run) => run.issues.some((i) => i.severity !== "info"));
  return failed ? EXIT.issues : EXIT.ok;
}

function ioError(name: string, cause: unknown): AgentStreamError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AgentStreamError("io", `cannot read ${name}: ${reason}`, { cause });
}
