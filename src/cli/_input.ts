/**
 * Shared by every command that reads agent output: the reading options, opening the inputs,
 * feeding the synchronous reader, printing diagnostics and the progress line.
 */
import { AgentStreamError, formatIssue, isSecurityIssue, type Issue } from "../errors.ts";
import type { AgentEvent } from "../model/events.ts";
import { createEventReader, type EventReader, type ReadOptions } from "../parse/create-event-reader.ts";
import { primeOnce } from "../parse/read-events.ts";
import type { Framing } from "../ndjson/create-ndjson-parser.ts";
import type { CliIo } from "./io.ts";
import type { RedactionCounts } from "../redact/redact-text.ts";

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

/** One input as the commands see it. */
export interface InputRun {
  /** The file name, or `<stdin>`. */
  readonly name: string;
  readonly reader: EventReader;
  readonly issues: Issue[];
}

export interface ReadHandlers {
  /** Called for each event of the input named `name`. */
  onEvent(event: AgentEvent, input: string): void;
  /** Called after each chunk: a good moment to flush batched output. */
  onChunk?(): void | Promise<void>;
  /** Called for each issue (after it is printed). */
  onIssue?(issue: Issue): void;
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
  for (const file of inputs) {
    const name = file === "-" ? "<stdin>" : file;
    const issues: Issue[] = [];
    const reader = createEventReader(
      { onEvent: (event) => handlers.onEvent(event, name) },
      {
        ...baseOptions,
        file: name,
        onIssue(issue) {
          issues.push(issue);
          const shown = isSecurityIssue(issue) || (values.quiet !== true && (issue.severity !== "info" || values.verbose === true));
          if (shown) void io.stderr.write(`${formatIssue(issue, name)}\n`);
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
    try {
      for await (const chunk of source) {
        reader.feed(chunk);
        progress?.advance(chunk.length);
        await handlers.onChunk?.();
      }
    } catch (cause) {
      progress?.clear();
      if (AgentStreamError.is(cause)) throw cause;
      throw ioError(name, cause);
    }
    reader.end();
    progress?.clear();
    const redacted = describeRedactions(reader.redactions);
    if (redacted !== undefined && values.quiet !== true) void io.stderr.write(`${name}: ${redacted}; --no-redact shows them\n`);
    await handlers.onChunk?.();
    runs.push({ name, reader, issues });
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
