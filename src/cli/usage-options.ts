/** The options `sessions` and `usage` share, and the one place they turn into a ledger and a filter. */
import { collectUsage, type Collected } from "../usage/collect.ts";
import { DEFAULT_LOCATIONS_HELP } from "../usage/discover.ts";
import { parseFilter, type UsageFilter } from "../usage/filters.ts";
import { createPricer, loadPrices, type Pricer } from "../usage/prices.ts";
import { AgentStreamError } from "../errors.ts";
import type { CliIo } from "./io.ts";

export const usageOptions = {
  since: { type: "string", valueHint: "<day>", description: "from this day on (YYYY-MM-DD or YYYYMMDD, in the time zone)" },
  until: { type: "string", valueHint: "<day>", description: "up to this day, included" },
  agent: { type: "string", multiple: true, valueHint: "<agent>", description: "only claude, codex or gemini (repeat, or a comma list)" },
  project: { type: "string", valueHint: "<text>", description: "only projects (working directories) containing this text" },
  tz: { type: "string", valueHint: "<zone>", description: "time zone for days and times (default: the machine's)" },
  prices: { type: "string", valueHint: "<file>", description: "a JSON price table laid over the built-in one (docs/usage.md)" },
  json: { type: "boolean", default: false, description: "print JSON (the contract is in docs/cli.md)" },
  "no-cache": { type: "boolean", default: false, description: "read every file again, and leave the cache alone" },
  threads: { type: "string", valueHint: "<n>", description: "worker threads for large inputs (default: the cores available)" },
} as const;

export const USAGE_LOCATIONS_NOTE = `
${DEFAULT_LOCATIONS_HELP}
Cache: $XDG_CACHE_HOME/agentstream (else ~/.cache/agentstream), keyed by path, size and mtime.`;

export interface UsageInputs {
  readonly collected: Collected;
  readonly filter: UsageFilter;
  readonly pricer: Pricer;
}

interface UsageValues {
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly agent?: string[] | undefined;
  readonly project?: string | undefined;
  readonly tz?: string | undefined;
  readonly prices?: string | undefined;
  readonly "no-cache": boolean;
  readonly threads?: string | undefined;
}

/** Checks the options (a mistake throws before any file is read), then reads the logs. */
export async function readUsage(values: UsageValues, paths: readonly string[], io: CliIo): Promise<UsageInputs> {
  const filter = parseFilter(values);
  const pricer = createPricer(loadPrices(values.prices));
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) {
    throw new AgentStreamError("usage", `--threads takes a whole number of threads (1 or more), not "${values.threads}"`);
  }
  const collected = await collectUsage({
    paths,
    env: io.env,
    cache: !values["no-cache"],
    threads,
    condensed: { pricer, timeZone: filter.timeZone },
  });
  for (const path of collected.missing) await io.stderr.write(`agentstream: ${path}: no such file or folder\n`);
  if (collected.unreadable.length > 0) {
    const some = collected.unreadable.slice(0, 3).join(", ");
    const more = collected.unreadable.length > 3 ? ` and ${collected.unreadable.length - 3} more` : "";
    await io.stderr.write(
      `agentstream: ${collected.unreadable.length} file(s) skipped, not a Claude, Codex or Gemini session log: ${some}${more}\n`,
    );
  }
  return { collected, filter, pricer };
}

/** The width a table may take: the terminal's, else $COLUMNS; unbounded when piped. */
export function tableWidth(io: CliIo): number {
  if (io.stdout.isTTY && io.stdout.columns !== undefined) return io.stdout.columns;
  const env = Number(io.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : Number.POSITIVE_INFINITY;
}
