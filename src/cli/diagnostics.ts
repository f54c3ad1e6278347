/**
 * The lines the CLI prints about an input: its issues, what was redacted, why nothing could be read, the
 * progress line. Every such line goes through `createDiagnostics`: made safe for a terminal (a line
 * quotes input: a record type, a file name) and capped per issue code (docs/cli.md, "Diagnostics").
 */
import { formatIssue, type Issue } from "../errors.ts";
import { MAX_DEPTH_HINT, MAX_LINE_HINT } from "../framing/ndjson/create-ndjson-parser.ts";
import type { EventReader } from "../pipeline/create-event-reader.ts";
import { redactText, type RedactionCounts } from "../stages/redact/redact-text.ts";
import { sanitizeForTerminal } from "../views/shared/sanitize.ts";
import type { CliIo, CliOutput } from "./io.ts";

/** Issues printed per code and input; the rest are counted and said in one line at the end. */
export const ISSUES_SHOWN_PER_CODE = 10;

/** The one writer of diagnostic lines on stderr. */
export interface Diagnostics {
  /** Prints `file:line: code: message`, unless this input already printed `ISSUES_SHOWN_PER_CODE` of its code. */
  issue(issue: Issue, input: string): void;
  /** Prints one line of ours that may quote input (a file name, an agent's message). */
  say(line: string): void | Promise<void>;
  /** Prints, per input and code, how many issues were not printed (`… and 999,990 more unknown-record issues`). */
  summarize(): void | Promise<void>;
}

/**
 * Creates the diagnostics writer of one command. Lines are sanitised (no escape sequence or control
 * character of the input reaches the terminal: `␛]52;…`), one line each (a newline shows as ⏎).
 */
export function createDiagnostics(stderr: CliOutput, shownPerCode = ISSUES_SHOWN_PER_CODE): Diagnostics {
  /** Issues seen per input and code: `input\0code` → count. */
  const seen = new Map<string, { input: string; code: string; count: number }>();
  const say = (line: string): void | Promise<void> => stderr.write(`${safeLine(line)}\n`);
  return {
    issue(issue, input) {
      const key = `${issue.file ?? input}\0${issue.code}`;
      const entry = seen.get(key) ?? { input: issue.file ?? input, code: issue.code, count: 0 };
      if (entry.count === 0) seen.set(key, entry);
      entry.count++;
      if (entry.count <= shownPerCode) void say(formatIssue(issue, input));
    },
    say,
    summarize() {
      let lines = "";
      for (const { input, code, count } of seen.values()) {
        if (count <= shownPerCode) continue;
        const more = count - shownPerCode;
        lines += `${safeLine(`${input}: … and ${more.toLocaleString("en-US")} more ${code} issue${more === 1 ? "" : "s"} (${shownPerCode} shown)`)}\n`;
      }
      seen.clear();
      return lines === "" ? undefined : stderr.write(lines);
    },
  };
}

/** A line of ours that may quote input (an error message naming a file), as one terminal-safe line. */
export function safeLine(line: string): string {
  return sanitizeForTerminal(line, { keepNewlines: false });
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
export function describeUnreadable(reader: EventReader, issues: readonly Issue[], bytes: number, from: string): string | undefined {
  const fatal = issues.find((issue) => issue.severity === "fatal");
  if (fatal !== undefined)
    return `nothing read from ${plural(bytes, "byte")}: ${fatal.message} (agentstream formats lists what can be read)`;
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
export function withCliHints(issue: Issue): Issue {
  if (issue.code === "line-too-long")
    return { ...issue, message: issue.message.replace(MAX_LINE_HINT, "raise --max-line-bytes to keep it") };
  if (issue.code === "depth-exceeded") return { ...issue, message: issue.message.replace(MAX_DEPTH_HINT, "raise --max-depth to keep it") };
  return issue;
}

/** A single progress line on stderr, redrawn at most 10 times a second, erased at the end. */
export function createProgress(io: CliIo, name: string, size: number) {
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

/** An issue about input read unredacted (validate checks what it was given), its message with secrets replaced for printing. */
export function redactedIssue(issue: Issue): Issue {
  return { ...issue, message: redactText(issue.message) };
}
