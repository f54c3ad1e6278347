/**
 * One session's `summary --json` object from its builder and the reader's counters where the session started and
 * ended (an input may hold several sessions: each gets the counts of its own lines). The summary sink of the CLI
 * and the MCP server's summary tool (src/mcp/) share it.
 */
import type { RedactionCounts } from "../stages/redact/redact-text.ts";
import type { SessionSummary, SummaryBuilder } from "../summary/summarize.ts";
import type { HealthStats, RecordStats } from "./create-event-reader.ts";

/** A summary, with the secrets replaced in its input by kind (`{}` when redaction is off or none was found). */
export type SummaryWithRedactions = SessionSummary & { redactions: RedactionCounts };

/** The reader's counters at one point of an input (where a session starts: undefined counts for the first). */
export interface ReaderCounters {
  readonly stats: RecordStats | undefined;
  readonly health: HealthStats | undefined;
  readonly redactions: RedactionCounts;
}

/** The counters before anything was read. */
export const INPUT_START: ReaderCounters = { stats: undefined, health: undefined, redactions: {} };

/** The summary of the session `builder` folded, read between the counters `from` and `to`. */
export function summarizeSession(
  builder: SummaryBuilder,
  from: ReaderCounters,
  to: { readonly stats: RecordStats; readonly health: HealthStats; readonly redactions: RedactionCounts },
  dialect: string | undefined,
): SummaryWithRedactions {
  const stats = from.stats === undefined ? to.stats : difference(to.stats, from.stats);
  const health = from.health === undefined ? to.health : difference(to.health, from.health);
  return { ...builder.result(stats, dialect, health), redactions: differenceOfCounts(to.redactions, from.redactions) };
}

/** Secrets redacted since the session started, by kind (kinds with none left out). */
function differenceOfCounts(to: RedactionCounts, from: RedactionCounts): RedactionCounts {
  const out: Record<string, number> = {};
  for (const [kind, count] of Object.entries(to)) {
    const since = count - ((from as Record<string, number>)[kind] ?? 0);
    if (since > 0) out[kind] = since;
  }
  return out as RedactionCounts;
}

/** Counter by counter, `to - from`. */
function difference<T extends object>(to: T, from: T): T {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(to)) out[key] = (value as number) - ((from as Record<string, number>)[key] ?? 0);
  return out as T;
}
