/**
 * What `sessions --json` and `usage --json` report, as values: the rows and groups chosen by the filter, and the
 * JSON objects of the contract in docs/cli.md. The commands print them; the MCP server (src/mcp/) returns them.
 */
import { type GroupDimension, groupUsage, type UsageReport } from "./aggregate.ts";
import type { Collected } from "./collect.ts";
import { chargeFilter, sessionInRange, sessionMatches, type UsageFilter } from "./filters.ts";
import type { LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { type FiguresJson, figuresJson } from "./render.ts";
import { durationOf, type SessionRow, type SessionSort, sessionRows, sortSessions } from "./session-rows.ts";

/** The sessions that pass the filter (agent, project, any of their span in the range), sorted. */
export function sessionsReport(collected: Collected, filter: UsageFilter, pricer: Pricer, sort: SessionSort): SessionRow[] {
  const keep = (session: LedgerSession): boolean => sessionMatches(filter, session) && sessionInRange(filter, session);
  return sortSessions(sessionRows(collected.ledger, pricer, keep), sort);
}

/** One session of `sessions --json`. */
export type SessionJson = {
  agent: SessionRow["agent"];
  sessionId: string | null;
  project: string | null;
  start: string | null;
  end: string | null;
  durationMs: number | null;
  status: SessionRow["status"];
  malformedLines: number;
  files: readonly string[];
  /** The session's title where its store keeps one (OpenCode, Amp). */
  title?: string;
} & FiguresJson;

export function sessionJson(row: SessionRow): SessionJson {
  return {
    agent: row.agent,
    sessionId: row.sessionId,
    project: row.project,
    start: row.start === null ? null : new Date(row.start).toISOString(),
    end: row.end === null ? null : new Date(row.end).toISOString(),
    durationMs: row.start === null ? null : durationOf(row),
    status: row.status,
    ...figuresJson(row.figures),
    malformedLines: row.malformedLines,
    files: row.files,
    ...(row.title === null ? {} : { title: row.title }),
  };
}

/** The requests that pass the filter (their own day in the range, their session matching), grouped `by`. */
export function usageReport(
  collected: Collected,
  filter: UsageFilter,
  pricer: Pricer,
  grouping: { readonly by: readonly GroupDimension[]; readonly breakdown: boolean },
): UsageReport {
  const include = chargeFilter(filter, collected.ledger);
  return groupUsage(collected.ledger.charges, {
    by: grouping.by,
    timeZone: filter.timeZone,
    breakdown: grouping.breakdown,
    pricer,
    ledger: collected.ledger,
    ...(include === undefined ? {} : { include }),
  });
}

/** One group of `usage --json`: its value for each dimension asked, its figures, its models with `breakdown`. */
type UsageGroupJson = Record<string, unknown> & FiguresJson & { breakdown?: ({ model: string } & FiguresJson)[] };

/** `usage --json`. */
export interface UsageJson {
  by: readonly GroupDimension[];
  timeZone: string;
  /** The date of the price table. */
  prices: string;
  files: number;
  sessions: number;
  duplicateRecords: number;
  malformedLines: number;
  groups: UsageGroupJson[];
  totals: FiguresJson;
}

/** `usage --json`: the report with what was read to make it. */
export function usageJson(report: UsageReport, collected: Collected, filter: UsageFilter, pricer: Pricer): UsageJson {
  const groups = report.groups.map(
    (g): UsageGroupJson => ({
      ...g.key,
      ...figuresJson(g.figures),
      ...(g.breakdown === undefined ? {} : { breakdown: g.breakdown.map((b) => ({ model: b.model, ...figuresJson(b.figures) })) }),
    }),
  );
  return {
    by: report.by,
    timeZone: filter.timeZone,
    prices: pricer.date,
    files: collected.files,
    sessions: collected.ledger.sessions.size,
    duplicateRecords: collected.ledger.duplicates,
    malformedLines: [...collected.ledger.sessions.values()].reduce((sum, session) => sum + session.badLines, 0),
    groups,
    totals: figuresJson(report.totals),
  };
}
