/** The options `sessions` and `usage` share, and the one place they turn into a ledger and a filter. */
import { collectUsage, type Collected } from "../usage/collect.ts";
import { DEFAULT_LOCATIONS_HELP } from "../usage/discover.ts";
import { USAGE_AGENTS } from "../usage/sources.ts";
import { parseFilter, type UsageFilter } from "../usage/filters.ts";
import { createPricer, loadPrices, type Pricer } from "../usage/prices.ts";
import { AgentStreamError } from "../errors.ts";
import { safeCell } from "../usage/table.ts";
import { EXIT } from "./exit.ts";
import type { CliIo } from "./io.ts";

export const usageOptions = {
  since: { type: "string", valueHint: "<day>", description: "from this day on (YYYY-MM-DD or YYYYMMDD, in the time zone)" },
  until: { type: "string", valueHint: "<day>", description: "up to this day, included" },
  agent: { type: "string", multiple: true, valueHint: "<agent>", description: `only ${USAGE_AGENTS.join(", ")} (repeat, or a comma list)` },
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
  /** The status to end with: an I/O error when a path named is missing or something could not be read (all else is still reported). */
  readonly exit: number;
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
  for (const path of collected.missing) await io.stderr.write(`agentstream: ${safeCell(path)}: no such file or folder\n`);
  for (const { path, reason } of collected.failed) await io.stderr.write(`agentstream: ${safeCell(path)}: cannot read it: ${reason}\n`);
  const skipped = collected.skipped;
  if (skipped.length > 0) {
    const some = skipped.slice(0, 3).map(safeCell).join(", ");
    const more = skipped.length > 3 ? ` and ${skipped.length - 3} more` : "";
    await io.stderr.write(
      `agentstream: ${skipped.length} file(s) skipped, not a session log of an agent agentstream reads (${USAGE_AGENTS.join(", ")}): ${some}${more}\n`,
    );
  }
  const rebuilt = collected.cacheRebuilt;
  if (rebuilt !== undefined)
    await io.stderr.write(`agentstream: the usage cache ${safeCell(rebuilt.path)} could not be used (${rebuilt.why}): made again\n`);
  await reportMalformed(collected, io);
  return { collected, filter, pricer, exit: collected.missing.length + collected.failed.length > 0 ? EXIT.io : EXIT.ok };
}

/** Says how many lines were malformed (not JSON, or usage that is not counts and a date), and in which sessions' files. */
async function reportMalformed(collected: Collected, io: CliIo): Promise<void> {
  const sessions = [...collected.ledger.sessions.values()].filter((session) => session.badLines > 0);
  if (sessions.length === 0) return;
  const lines = sessions.reduce((sum, session) => sum + session.badLines, 0);
  const some = sessions.slice(0, 3).map((session) => safeCell(session.files[0] ?? session.key));
  const more = sessions.length > 3 ? ` and ${sessions.length - 3} more` : "";
  await io.stderr.write(
    `agentstream: ${lines} malformed line(s) skipped (not JSON, or usage whose counts are not counts or whose time is not a date) in ${sessions.length} session(s): ${some.join(", ")}${more}\n`,
  );
}

/** The width a table may take: the terminal's, else $COLUMNS; unbounded when piped. */
export function tableWidth(io: CliIo): number {
  if (io.stdout.isTTY && io.stdout.columns !== undefined) return io.stdout.columns;
  const env = Number(io.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : Number.POSITIVE_INFINITY;
}
