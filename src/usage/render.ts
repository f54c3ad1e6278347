/**
 * What `sessions` and `usage` print: JSON (the contract in docs/cli.md) or a table that fits the terminal,
 * with a note saying which costs are estimated and which models have no price.
 */
import { formatCost, formatCount, formatDuration } from "../views/shared/format.ts";
import type { UsageReport } from "./aggregate.ts";
import { durationOf, type SessionRow } from "./session-rows.ts";
import { renderTable, safeCell, type TableColumn } from "./table.ts";
import { totalTokens, type TokenCounts, type UsageFigures } from "./types.ts";

interface TokensJson {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  total: number;
}

export interface FiguresJson {
  tokens: TokensJson;
  /** Reported plus estimated; null when any request has no price (the cost is not known, and never 0 for it). */
  costUsd: number | null;
  /** The cost of the requests that have a price: `costUsd` when every one has; the table's figure before `+?`. */
  pricedCostUsd: number;
  /** The part computed from the price table (`estimated`), the rest was reported by the agent. */
  estimatedCostUsd: number;
  costEstimated: boolean;
  unpricedModels: string[];
  models: string[];
  requests: number;
}

function tokensJson(t: TokenCounts): TokensJson {
  return {
    input: t.input,
    output: t.output,
    cacheRead: t.cacheRead,
    cacheWrite: t.cacheWrite,
    reasoning: t.reasoning,
    total: totalTokens(t),
  };
}

export function figuresJson(f: UsageFigures): FiguresJson {
  return {
    tokens: tokensJson(f.tokens),
    costUsd: f.unpricedModels.size > 0 ? null : round(f.costUsd),
    pricedCostUsd: round(f.costUsd),
    estimatedCostUsd: round(f.estimatedUsd),
    costEstimated: f.estimatedUsd > 0,
    unpricedModels: [...f.unpricedModels].sort(),
    models: [...f.models].sort(),
    requests: f.requests,
  };
}

/** Costs to the millionth of a dollar: sums of floats otherwise print their noise. */
function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** `~$1.23` estimated, `$1.23` reported, `+?` when some requests have no price, `?` when none has. */
function costCell(f: UsageFigures): string {
  const unpriced = f.unpricedModels.size > 0;
  if (unpriced && f.costUsd === 0) return "?";
  return `${f.estimatedUsd > 0 ? "~" : ""}${formatCost(f.costUsd)}${unpriced ? "+?" : ""}`;
}

/** Exact counts with thousands separators, or compact (12.3k) when the table would not fit. */
function countCell(n: number, compact: boolean): string {
  return compact ? formatCount(n) : n.toLocaleString("en-US");
}

/** The lines under a table: what `~` and `?` mean, and the models without a price. */
export function costNote(totals: UsageFigures, pricesDate: string): string {
  const lines: string[] = [];
  if (totals.estimatedUsd > 0) lines.push(`~ estimated from the price table of ${pricesDate} where the agent reported no cost`);
  if (totals.unpricedModels.size > 0) {
    const models = [...totals.unpricedModels].sort().map(safeCell).join(", ");
    lines.push(`no price for: ${models} (their tokens are counted, their cost is not; --prices <file> adds them)`);
  }
  return lines.length === 0 ? "" : `\n${lines.join("\n")}\n`;
}

const TOKEN_COLUMNS: TableColumn[] = [
  { header: "input", align: "right", dropOrder: 3 },
  { header: "output", align: "right", dropOrder: 2 },
  { header: "cache read", align: "right", dropOrder: 4 },
  { header: "cache write", align: "right", dropOrder: 5 },
  { header: "reasoning", align: "right", dropOrder: 6 },
  { header: "total", align: "right", dropOrder: 1 },
  { header: "cost", align: "right", dropOrder: 0 },
];

function figureCells(f: UsageFigures, compact: boolean): string[] {
  const t = f.tokens;
  return [t.input, t.output, t.cacheRead, t.cacheWrite, t.reasoning, totalTokens(t)].map((n) => countCell(n, compact)).concat(costCell(f));
}

/** The `usage` table: one row per group (its models below it with --breakdown), then the totals. */
export function usageTable(report: UsageReport, width: number): string {
  const keyColumns: TableColumn[] = report.by.map((dimension, i) => ({
    header: dimension,
    align: "left",
    dropOrder: 0,
    minWidth: i === 0 ? 10 : 8,
    keep: dimension === "project" ? "end" : "start",
    distinct: true,
  }));
  const columns = [...keyColumns, ...TOKEN_COLUMNS];
  const rows = (compact: boolean): string[][] => {
    const out: string[][] = [];
    for (const group of report.groups) {
      out.push([...report.by.map((d) => safeCell(group.key[d] ?? "")), ...figureCells(group.figures, compact)]);
      for (const part of group.breakdown ?? []) {
        const label = [`  └ ${safeCell(part.model)}`, ...report.by.slice(1).map(() => "")];
        out.push([...label, ...figureCells(part.figures, compact)]);
      }
    }
    out.push([...report.by.map((_, i) => (i === 0 ? "total" : "")), ...figureCells(report.totals, compact)]);
    return out;
  };
  const exact = renderTable(columns, rows(false), Number.POSITIVE_INFINITY);
  const fits = exact.split("\n").every((line) => line.length <= width);
  return fits ? exact : renderTable(columns, rows(true), width);
}

/**
 * What tells sessions apart goes last: the start, the agent, the project (its path cut from the left first) and
 * the status; the file, the models, the duration and the tokens go first (the cost stays).
 */
const SESSION_COLUMNS: TableColumn[] = [
  { header: "start", align: "left", dropOrder: 0 },
  { header: "agent", align: "left", dropOrder: 2 },
  { header: "project", align: "left", dropOrder: 4, minWidth: 10, keep: "end" },
  { header: "duration", align: "right", dropOrder: 6 },
  { header: "models", align: "left", dropOrder: 7, minWidth: 12 },
  { header: "status", align: "left", dropOrder: 3 },
  { header: "tokens", align: "right", dropOrder: 5 },
  { header: "cost", align: "right", dropOrder: 0 },
  { header: "file", align: "left", dropOrder: 8, minWidth: 16, keep: "end" },
];

/** The `sessions` table, times in `timeZone`. */
export function sessionsTable(rows: readonly SessionRow[], timeZone: string, width: number): string {
  const format = new Intl.DateTimeFormat("sv-SE", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  });
  const cells = rows.map((row) => [
    row.start === null ? "-" : format.format(new Date(row.start)),
    row.agent,
    safeCell(row.project ?? "-"),
    row.start === null ? "-" : formatDuration(durationOf(row)),
    safeCell([...row.figures.models].sort().join(", ") || "-"),
    row.status,
    formatCount(totalTokens(row.figures.tokens)),
    row.figures.requests === 0 ? "-" : costCell(row.figures),
    safeCell(row.files[0] ?? ""),
  ]);
  return renderTable(SESSION_COLUMNS, cells, width);
}
