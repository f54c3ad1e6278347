/** One row per session for `agentstream sessions`: its facts, with the tokens and cost charged to it. */
import { addCharge, emptyFigures } from "./aggregate.ts";
import type { Ledger, LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { totalTokens, type UsageAgent, type UsageFigures } from "./types.ts";

export interface SessionRow {
  readonly agent: UsageAgent;
  readonly sessionId: string | null;
  readonly project: string | null;
  readonly start: number | null;
  readonly end: number | null;
  readonly status: LedgerSession["status"];
  readonly files: readonly string[];
  readonly figures: UsageFigures;
  /** Lines of its files that were not JSON, or usage records whose counts or time were malformed. */
  readonly malformedLines: number;
  /** The title its store keeps (OpenCode, Amp), else null. */
  readonly title: string | null;
}

export const SESSION_SORTS = ["start", "end", "duration", "tokens", "cost", "project", "agent"] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

export function sessionRows(ledger: Ledger, pricer: Pricer, keep: (session: LedgerSession) => boolean): SessionRow[] {
  const figures = new Map<string, UsageFigures>();
  ledger.charges.forEach((charge) => {
    let f = figures.get(charge.session);
    if (f === undefined) {
      f = emptyFigures();
      figures.set(charge.session, f);
    }
    addCharge(f, charge, pricer);
  });
  const rows: SessionRow[] = [];
  for (const session of ledger.sessions.values()) {
    if (!keep(session)) continue;
    const { agent, sessionId, project, start, end, status, files, badLines, title } = session;
    const sessionFigures = figures.get(session.key) ?? emptyFigures();
    rows.push({ agent, sessionId, project, start, end, status, files, figures: sessionFigures, malformedLines: badLines, title });
  }
  return rows;
}

/** Sorted by `sort`: times and names ascending, sizes (duration, tokens, cost) largest first. */
export function sortSessions(rows: SessionRow[], sort: SessionSort): SessionRow[] {
  const value = (row: SessionRow): number | string => {
    switch (sort) {
      case "start":
        return row.start ?? Number.POSITIVE_INFINITY;
      case "end":
        return row.end ?? Number.POSITIVE_INFINITY;
      case "duration":
        return -durationOf(row);
      case "tokens":
        return -totalTokens(row.figures.tokens);
      case "cost":
        return -row.figures.costUsd;
      case "project":
        return row.project ?? "";
      case "agent":
        return row.agent;
    }
  };
  return rows.sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x !== y) return x < y ? -1 : 1;
    return (a.files[0] ?? "") < (b.files[0] ?? "") ? -1 : 1;
  });
}

export function durationOf(row: { start: number | null; end: number | null }): number {
  return row.start === null || row.end === null ? 0 : row.end - row.start;
}
