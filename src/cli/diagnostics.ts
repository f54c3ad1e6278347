/** The lines the CLI prints about an input: what was redacted, why nothing could be read, the progress line. */
import type { Issue } from "../errors.ts";
import { MAX_DEPTH_HINT, MAX_LINE_HINT } from "../framing/ndjson/create-ndjson-parser.ts";
import type { EventReader } from "../pipeline/create-event-reader.ts";
import type { RedactionCounts } from "../stages/redact/redact-text.ts";
import type { CliIo } from "./io.ts";

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
