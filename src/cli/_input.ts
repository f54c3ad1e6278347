/**
 * Shared by every command that reads agent output: the reading options, opening the inputs,
 * feeding the synchronous reader, printing diagnostics and the progress line.
 */
import { AgentStreamError, formatIssue, isSecurityIssue, type Issue } from "../errors.ts";
import type { AgentEvent } from "../model/events.ts";
import { createEventReader, type EventReader, type ReadOptions, type SessionBoundary } from "../pipeline/create-event-reader.ts";
import { primeOnce } from "../pipeline/read-events.ts";
import { MAX_DEPTH_HINT, MAX_LINE_HINT, type Framing } from "../framing/ndjson/create-ndjson-parser.ts";
import { createSseDecoder, looksLikeSse } from "../framing/create-sse-decoder.ts";
import { EXIT } from "./command.ts";
import type { CliIo } from "./io.ts";
import type { RedactionCounts } from "../stages/redact/redact-text.ts";

/** parseArgs option specs shared by the reading commands. */
export const readingOptions = {
  from: { type: "string", default: "auto" },
  framing: { type: "string", default: "auto" },
  strict: { type: "boolean", default: false },
  "include-raw": { type: "boolean", default: false },
  "max-line-bytes": { type: "string" },
  "max-depth": { type: "string" },
  "duplicate-keys": { type: "string", default: "keep-last" },
  "no-repair": { type: "boolean", default: false },
  "no-redact": { type: "boolean", default: false },
  verbose: { type: "boolean", short: "v", default: false },
  quiet: { type: "boolean", short: "q", default: false },
} as const;

/** Help text for the shared options. */
export const readingOptionsHelp = `Input options:
  --from <dialect>         input dialect, or auto (default: auto; see \`agentstream formats\`)
  --framing <framing>      auto | ndjson | json-seq | pretty | document (default: auto)
  --strict                 stop at the first input issue (exit 1)
  --include-raw            attach each source record to its events as "raw"
  --max-line-bytes <n>     longest line kept (default: 16777216)
  --max-depth <n>          deepest nesting accepted (default: 128)
  --duplicate-keys <mode>  keep-last (report and keep) | reject (default: keep-last)
  --no-repair              show the raw stream: no snapshot/duplicate repair (docs/repair.md)
  --no-redact              show secrets (API keys, tokens, passwords) as they are; by default
                           they are replaced with [REDACTED:<kind>] (docs/redaction.md)
  -v, --verbose            also print informational diagnostics (blank lines, text lines)
  -q, --quiet              print no diagnostics`;

export type ReadingValues = {
  from?: string;
  framing?: string;
  strict?: boolean;
  "include-raw"?: boolean;
  "max-line-bytes"?: string;
  "max-depth"?: string;
  "duplicate-keys"?: string;
  "no-repair"?: boolean;
  "no-redact"?: boolean;
  verbose?: boolean;
  quiet?: boolean;
  /** Not a flag (yet): read an input whose first line is an SSE field as Server-Sent Events. */
  sse?: boolean;
};

/** Turns the shared CLI options into reader options; throws a usage error for bad values. */
export function toReadOptions(values: ReadingValues): ReadOptions {
  const options: ReadOptions = {};
  if (values.from !== undefined) options.dialect = values.from;
  if (values.framing !== undefined) options.framing = values.framing as Framing;
  if (values.strict === true) options.strict = true;
  if (values["include-raw"] === true) options.includeRaw = true;
  if (values["no-repair"] === true) options.repair = false;
  // Secrets are never shown or written by default: the CLI writes logs and terminals.
  options.redact = values["no-redact"] !== true;
  if (values["max-line-bytes"] !== undefined) options.maxLineBytes = positiveInteger("--max-line-bytes", values["max-line-bytes"]);
  if (values["max-depth"] !== undefined) options.maxDepth = positiveInteger("--max-depth", values["max-depth"]);
  const keys = values["duplicate-keys"];
  if (keys !== undefined) {
    if (keys !== "keep-last" && keys !== "reject") throw new AgentStreamError("usage", `--duplicate-keys takes keep-last or reject, not "${keys}"`);
    options.duplicateKeys = keys;
  }
  return options;
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new AgentStreamError("usage", `${flag} takes a positive whole number, not "${value}"`);
  return n;
}

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

export interface ReadHandlers {
  /** Called for each event of the input named `name`. */
  onEvent(event: AgentEvent, input: string): void;
  /** Called after each chunk: a good moment to flush batched output. */
  onChunk?(): void | Promise<void>;
  /** Called for each issue (after it is printed). */
  onIssue?(issue: Issue): void;
  /** Called where a new session starts inside the input named `name` (concatenated output). */
  onSessionBoundary?(boundary: SessionBoundary, input: string): void;
}

const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

/**
 * Reads each input in turn (stdin when `files` is empty or `-`), printing diagnostics to stderr as
 * `file:line: code: message`. I/O failures throw AgentStreamError with code `io`.
 */
export async function readInputs(files: readonly string[], io: CliIo, values: ReadingValues, handlers: ReadHandlers): Promise<InputRun[]> {
  const baseOptions = toReadOptions(values);
  const inputs = files.length === 0 ? ["-"] : files;
  // A live pipe's first line should not pay for compiling the pipeline: compile it now, while the agent starts.
  if (inputs.includes("-")) primeOnce();
  if (values["no-redact"] === true) void io.stderr.write("agentstream: --no-redact: secrets in the input (API keys, tokens, passwords) will be shown as they are\n");
  const runs: InputRun[] = [];
  if (inputs.includes("-") && io.stdin.isTTY === true && values.quiet !== true) {
    // A terminal on stdin: without this line the command looks hung.
    await io.stderr.write("agentstream: reading agent output from the terminal; pipe it in or name a file (Ctrl-D ends the input)\n");
  }
  for (const file of inputs) {
    const name = file === "-" ? "<stdin>" : file;
    const issues: Issue[] = [];
    let framing: ReturnType<typeof createSseSniffer> | undefined;
    // Read as SSE, records are numbered as the data lines fed to the reader: point back at the SSE line.
    const sseLine = (line: number | undefined): number | undefined => (line === undefined || line === 0 ? line : (framing?.lineOf(line) ?? line));
    const reader = createEventReader(
      {
        onEvent(event) {
          const line = event.source?.line;
          const mapped = sseLine(line);
          handlers.onEvent(mapped === line || event.source === undefined ? event : ({ ...event, source: { ...event.source, line: mapped } } as AgentEvent), name);
        },
        onSessionBoundary: (boundary) => handlers.onSessionBoundary?.(boundary, name),
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
          const wanted = issue.severity !== "info" || values.verbose === true;
          const shown = issue.severity !== "fatal" && (isSecurityIssue(issue) || (values.quiet !== true && wanted));
          if (shown) void io.stderr.write(`${formatIssue(withCliHints(issue), name)}\n`);
          handlers.onIssue?.(issue);
        },
      },
    );
    let source: AsyncIterable<Uint8Array | string>;
    try {
      source = file === "-" ? io.stdin : io.openFile(file);
    } catch (cause) {
      throw ioError(name, cause);
    }
    const size = file === "-" ? undefined : io.fileSize(file);
    const progress = io.stderr.isTTY && values.quiet !== true && size !== undefined && size > PROGRESS_MIN_BYTES ? createProgress(io, name, size) : undefined;
    let bytes = 0;
    framing = values.sse === true ? createSseSniffer(reader) : undefined;
    try {
      for await (const chunk of source) {
        bytes += chunk.length;
        if (framing === undefined) reader.feed(chunk);
        else framing.feed(chunk);
        progress?.advance(chunk.length);
        await handlers.onChunk?.();
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
    if (redacted !== undefined && values.quiet !== true) void io.stderr.write(`${name}: ${redacted}; --no-redact shows them\n`);
    await handlers.onChunk?.();
    // An SSE stream without data events was read; the command says what it found in it.
    const unreadable = framing?.lines() === undefined ? describeUnreadable(reader, issues, bytes, values.from ?? "auto") : undefined;
    if (unreadable !== undefined && values.quiet !== true) await io.stderr.write(`${name}: ${unreadable}\n`);
    runs.push({ name, reader, issues, bytes, unreadable, sseLines: framing?.lines() });
  }
  return runs;
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
  const failed = values.strict === true && runs.some((run) => run.issues.some((i) => i.severity !== "info"));
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
