/** The options every reading command shares (render, convert, summary, validate), and how they become reader options. */
import { AgentStreamError } from "../errors.ts";
import type { Framing } from "../framing/ndjson/create-ndjson-parser.ts";
import type { ReadOptions } from "../pipeline/create-event-reader.ts";
import { parseCommandLine, type OptionSpecs, type ParsedValues } from "./args.ts";

/** The shared options, listed under "Input options:" in each command's `--help`. */
export const readingOptions = {
  from: {
    type: "string",
    default: "auto",
    valueHint: "<dialect>",
    group: "input",
    description: "input dialect, or auto (default: auto; see `agentstream formats`)",
  },
  framing: {
    type: "string",
    default: "auto",
    valueHint: "<framing>",
    group: "input",
    description: "auto | ndjson | json-seq | pretty | document (default: auto)",
  },
  strict: { type: "boolean", default: false, group: "input", description: "stop at the first input issue (exit 1)" },
  "include-raw": { type: "boolean", default: false, group: "input", description: 'attach each source record to its events as "raw"' },
  "max-line-bytes": { type: "string", valueHint: "<n>", group: "input", description: "longest line kept (default: 16777216)" },
  "max-depth": { type: "string", valueHint: "<n>", group: "input", description: "deepest nesting accepted (default: 128)" },
  "duplicate-keys": {
    type: "string",
    default: "keep-last",
    valueHint: "<mode>",
    choices: ["keep-last", "reject"],
    group: "input",
    description: "keep-last (report and keep) | reject (default: keep-last)",
  },
  "no-repair": {
    type: "boolean",
    default: false,
    group: "input",
    description: "show the raw stream: no snapshot/duplicate repair (docs/repair.md)",
  },
  "no-redact": {
    type: "boolean",
    default: false,
    group: "input",
    description:
      "show secrets (API keys, tokens, passwords) as they are; by default they are replaced with [REDACTED:<kind>] (docs/redaction.md)",
  },
  verbose: {
    type: "boolean",
    short: "v",
    default: false,
    group: "input",
    description: "also print informational diagnostics (blank lines, text lines)",
  },
  quiet: { type: "boolean", short: "q", default: false, group: "input", description: "print no diagnostics" },
} as const satisfies OptionSpecs;

/** The reading options as parsed. */
export type ReadingValues = ParsedValues<typeof readingOptions>;

/** The reading options as they are when no flag is given. */
export const readingDefaults: ReadingValues = parseCommandLine(readingOptions, []).values;

const FRAMINGS: readonly Framing[] = ["auto", "ndjson", "json-seq", "pretty", "document"];

function isFraming(value: string): value is Framing {
  return (FRAMINGS as readonly string[]).includes(value);
}

/** Turns the shared CLI options into reader options; throws a usage error for bad values. */
export function toReadOptions(values: ReadingValues): ReadOptions {
  const options: ReadOptions = { dialect: values.from, duplicateKeys: values["duplicate-keys"] };
  if (!isFraming(values.framing))
    throw new AgentStreamError("usage", `unknown framing "${values.framing}": use auto, ndjson, json-seq, pretty or document`);
  options.framing = values.framing;
  if (values.strict) options.strict = true;
  if (values["include-raw"]) options.includeRaw = true;
  if (values["no-repair"]) options.repair = false;
  // Secrets are never shown or written by default: the CLI writes logs and terminals.
  options.redact = !values["no-redact"];
  if (values["max-line-bytes"] !== undefined) options.maxLineBytes = positiveInteger("--max-line-bytes", values["max-line-bytes"]);
  if (values["max-depth"] !== undefined) options.maxDepth = positiveInteger("--max-depth", values["max-depth"]);
  return options;
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new AgentStreamError("usage", `${flag} takes a positive whole number, not "${value}"`);
  return n;
}
