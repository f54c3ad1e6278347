/**
 * The pipeline glue of every command that reads agent output: source → event reader → sink.
 * Prints diagnostics and the progress line, flushes the batched output after each chunk.
 */
import { AgentStreamError, formatIssue, isSecurityIssue, type Issue } from "../errors.ts";
import { createEventReader, type EventReader, type ReadOptions } from "../pipeline/create-event-reader.ts";
import { primeOnce } from "../pipeline/read-events.ts";
import { MAX_DEPTH_HINT, MAX_LINE_HINT } from "../framing/ndjson/create-ndjson-parser.ts";
import { createSseDecoder, looksLikeSse } from "../framing/create-sse-decoder.ts";
import { EXIT } from "./exit.ts";
import type { CliIo } from "./io.ts";
import type { BatchedOutput } from "./output.ts";
import { toReadOptions, type ReadingValues } from "./reading-options.ts";
import type { Sink } from "./sinks/sink.ts";
import type { Source } from "./sources/source.ts";
import type { RedactionCounts } from "../stages/redact/redact-text.ts";

/** Issues of severity warning or worse kept per input (memory stays flat on a long, broken stream). */
const KEPT_ISSUES = 1000;

/** One input as the commands see it. */
export interface InputRun {
  /** The file name, or `<stdin>`. */
  readonly name: string;
  readonly reader: EventReader;
  /** The first 1000 issues of severity warning or worse (all of them were printed as they came). */
  readonly issues: Issue[];
  /** Bytes read. */
  readonly bytes: number;
  /** Set when nothing useful could be read: the one line printed about it (empty, not text, no dialect). */
  readonly unreadable: string | undefined;
  /** For an input read as SSE: the SSE line of each record, by record line (1-based); else undefined. */
  readonly sseLines: readonly number[] | undefined;
}

/** What the pipeline reads, where the events go, and how. */
export interface PipelineOptions {
  readonly sources: readonly Source[];
  readonly io: CliIo;
  readonly reading: ReadingValues;
  readonly sink: Sink;
  /** Flushed after each chunk read and at the end of each input (batching + backpressure). */
  readonly output?: BatchedOutput;
  /** Read an input whose first line is an SSE field as Server-Sent Events (validate --format). */
  readonly sniffSse?: boolean;
}

const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

/**
 * The pipeline: each source in turn → the event reader → the sink, printing diagnostics to stderr
 * as `file:line: code: message`. Calls `sink.end` after the last input and returns what each input
 * gave. I/O failures throw AgentStreamError with code `io`.
 */
export async function readInputs(options: PipelineOptions): Promise<InputRun[]> {
  const { sources, io, reading } = options;
  const baseOptions = toReadOptions(reading);
  // A live pipe's first line should not pay for compiling the pipeline: compile it now, while the agent starts.
  if (sources.some((source) => source.live === true)) primeOnce();
  if (reading["no-redact"]) void io.stderr.write("agentstream: --no-redact: secrets in the input (API keys, tokens, passwords) will be shown as they are\n");
  if (sources.some((source) => source.interactive === true) && !reading.quiet) {
    // A terminal on stdin: without this line the command looks hung.
    await io.stderr.write("agentstream: reading agent output from the terminal; pipe it in or name a file (Ctrl-D ends the input)\n");
  }
  const runs: InputRun[] = [];
  for (const source of sources) {
    const run = await readInput(source, baseOptions, options);
    options.sink.endInput?.(run);
    runs.push(run);
  }
  await options.sink.end(runs);
  await options.output?.flush();
  return runs;
}

/** Reads one source to its end through a fresh reader. */
async function readInput(source: Source, baseOptions: ReadOptions, options: PipelineOptions): Promise<InputRun> {
  const { io, reading, sink, output } = options;
  const name = source.name;
  const issues: Issue[] = [];
  let framing: ReturnType<typeof createSseSniffer> | undefined;
  // Read as SSE, records are numbered as the data lines fed to the reader: point back at the SSE line.
  const sseLine = (line: number | undefined): number | undefined => (line === undefined || line === 0 ? line : (framing?.lineOf(line) ?? line));
  const reader = createEventReader(
    {
      onEvent(event) {
        const line = event.source?.line;
        const mapped = sseLine(line);
        sink.event(mapped === undefined || mapped === line || event.source === undefined ? event : { ...event, source: { ...event.source, line: mapped } }, name);
      },
      onSessionBoundary: (boundary) => sink.sessionBoundary?.(boundary, name),
    },
    {
      ...baseOptions,
      file: name,
      onIssue(reported) {
        const line = sseLine(reported.line);
        const issue: Issue = line === reported.line || line === undefined ? reported : { ...reported, line };
        // Kept to decide the exit status; a bounded list says enough (the count is in the health report).
        if (issue.severity !== "info" && issues.length < KEPT_ISSUES) issues.push(issue);
        // A fatal issue is said once, in the line about the unreadable input; security issues ignore -q.
        const wanted = issue.severity !== "info" || reading.verbose;
        const shown = issue.severity !== "fatal" && (isSecurityIssue(issue) || (!reading.quiet && wanted));
        if (shown) void io.stderr.write(`${formatIssue(withCliHints(issue), name)}\n`);
        sink.issue?.(issue, name);
      },
    },
  );
  const progress = io.stderr.isTTY && !reading.quiet && source.size !== undefined && source.size > PROGRESS_MIN_BYTES ? createProgress(io, name, source.size) : undefined;
  framing = options.sniffSse === true ? createSseSniffer(reader) : undefined;
  let bytes = 0;
  try {
    for await (const chunk of source.chunks()) {
      bytes += chunk.length;
      if (framing === undefined) reader.feed(chunk);
      else framing.feed(chunk);
      progress?.advance(chunk.length);
      await output?.flush();
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
  if (redacted !== undefined && !reading.quiet) void io.stderr.write(`${name}: ${redacted}; --no-redact shows them\n`);
  await output?.flush();
  // An SSE stream without data events was read; the command says what it found in it.
  const unreadable = framing?.lines() === undefined ? describeUnreadable(reader, issues, bytes, reading.from) : undefined;
  if (unreadable !== undefined && !reading.quiet) await io.stderr.write(`${name}: ${unreadable}\n`);
  return { name, reader, issues, bytes, unreadable, sseLines: framing?.lines() };
}

/** `redacted 3 secrets (github-token 2, jwt 1)`, or undefined when none were. */
export function describeRedactions(counts: RedactionCounts): string | undefined {
  const entries = Object.entries(counts);
  if (entries.length === 0) return undefined;
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return `redacted ${total} secret${total === 1 ? "" : "s"} (${entries.map(([kind, n]) => `${kind} ${n}`).join(", ")})`;
}

/**
 * Says, in one line, why an input gave nothing worth showing: it was empty, it was not text, or no
 * agent dialect was recognised (and none was named). Undefined when the input was read.
 */
function describeUnreadable(reader: EventReader, issues: readonly Issue[], bytes: number, from: string): string | undefined {
  const fatal = issues.find((issue) => issue.severity === "fatal");
  if (fatal !== undefined) return `nothing read from ${plural(bytes, "byte")}: ${fatal.message} (agentstream formats lists what can be read)`;
  const f = reader.framing;
  if (f.lines === f.blank) {
    const what = bytes === 0 ? "empty input" : `only ${plural(f.blank, "blank line")}`;
    return `${what}: nothing to show; pipe an agent's output in (e.g. claude -p ... --output-format stream-json) or name a file`;
  }
  if (from === "auto" && reader.dialect === "json") {
    return `no agent dialect recognised in ${plural(f.lines - f.blank, "line")} (${plural(f.json, "JSON record")}, ${plural(f.text, "text line")}, ${f.invalid} invalid); try --from <dialect> (agentstream formats lists them)`;
  }
  return undefined;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** The library's hints name its options; on the command line, name the flags. */
function withCliHints(issue: Issue): Issue {
  if (issue.code === "line-too-long") return { ...issue, message: issue.message.replace(MAX_LINE_HINT, "raise --max-line-bytes to keep it") };
  if (issue.code === "depth-exceeded") return { ...issue, message: issue.message.replace(MAX_DEPTH_HINT, "raise --max-depth to keep it") };
  return issue;
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

/**
 * Feeds the reader NDJSON, or, when the input opens like Server-Sent Events, each event's data as
 * one NDJSON line (the AI SDK's `data: [DONE]` terminator is not a record). Keeps the SSE line of
 * each record so diagnostics point into the file as written.
 */
function createSseSniffer(reader: EventReader) {
  const text = new TextDecoder("utf-8", { ignoreBOM: false });
  let head = "";
  let decided: "sse" | "ndjson" | undefined;
  const lines: number[] = [];
  const sse = createSseDecoder({
    onEvent(event) {
      if (event.data === "[DONE]") return;
      lines.push(event.line);
      // Raw newlines are JSON whitespace between tokens and invalid inside strings: one line keeps the JSON.
      reader.feed(`${event.data.replace(/\r\n|\r|\n/g, " ")}\n`);
    },
  });
  let raw: (Uint8Array | string)[] = []; // the chunks read while deciding, handed on as they came
  const decide = (final: boolean): void => {
    if (decided !== undefined || (!final && !/\S[^\n]*\n/.test(head))) return;
    decided = looksLikeSse(head) ? "sse" : "ndjson";
    if (decided === "sse") sse.feed(head);
    else for (const chunk of raw) reader.feed(chunk);
    head = "";
    raw = [];
  };
  return {
    feed(chunk: Uint8Array | string): void {
      if (decided === "ndjson") {
        reader.feed(chunk);
        return;
      }
      const piece = typeof chunk === "string" ? chunk : text.decode(chunk, { stream: true });
      if (decided === "sse") {
        sse.feed(piece);
        return;
      }
      head += piece;
      raw.push(chunk);
      decide(false);
    },
    end(): void {
      const rest = text.decode();
      if (decided === "sse" && rest !== "") sse.feed(rest);
      else head += rest;
      decide(true);
      if (decided === "sse") sse.end();
    },
    lines: (): readonly number[] | undefined => (decided === "sse" ? lines : undefined),
    /** The SSE line of the record fed as NDJSON line `line`, once the input is known to be SSE. */
    lineOf: (line: number): number | undefined => (decided === "sse" ? lines[line - 1] : undefined),
  };
}

function ioError(name: string, cause: unknown): AgentStreamError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AgentStreamError("io", `cannot read ${name}: ${reason}`, { cause });
}

/** A single progress line on stderr, redrawn at most 10 times a second, erased at the end. */
function createProgress(io: CliIo, name: string, size: number) {
  let done = 0;
  let last = 0;
  let shown = false;
  return {
    advance(bytes: number) {
      done += bytes;
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      const percent = Math.min(100, Math.floor((done / size) * 100));
      void io.stderr.write(`\r\x1b[2K${name}: ${percent}% (${(done / 1e6).toFixed(1)} of ${(size / 1e6).toFixed(1)} MB)`);
    },
    clear() {
      if (shown) void io.stderr.write("\r\x1b[2K");
    },
  };
}
