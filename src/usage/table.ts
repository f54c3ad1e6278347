/**
 * A table that fits the terminal: columns keep their natural width while they fit; then the columns that may
 * shrink are cut (paths from the left, so the file name stays), then the least important columns are dropped.
 * Every cell from a log (paths, model names) is made safe for a terminal first.
 */
import { sanitizeForTerminal } from "../views/shared/sanitize.ts";
import { cutToWidth, displayWidth } from "../views/shared/width.ts";

export interface TableColumn {
  readonly header: string;
  readonly align: "left" | "right";
  /** Higher goes first when the table is too wide; 0 is never dropped. */
  readonly dropOrder: number;
  /** Narrowest a shrinking column gets; undefined: the column is not cut. */
  readonly minWidth?: number;
  /** Which end of a cut cell is kept: paths keep their end, and are cut before the other columns. */
  readonly keep?: "start" | "end";
  /** What tells the rows apart (`usage`'s groups): never cut so far that two different cells read the same. */
  readonly distinct?: boolean;
}

const GAP = "  ";

/** A cell from a log, safe to print: escape sequences neutralised, on one row. */
export function safeCell(text: string): string {
  return sanitizeForTerminal(text).replace(/[\r\n\t]/g, " ");
}

export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[], width: number): string {
  let shown = columns.map((_, i) => i);
  const natural = columns.map((column, i) => Math.max(displayWidth(column.header), ...rows.map((row) => displayWidth(row[i] ?? ""))));
  const narrowest = columns.map((column, i) =>
    column.minWidth === undefined ? undefined : Math.max(column.minWidth, column.distinct === true ? distinctWidth(rows, i, column) : 0),
  );
  // Paths first: a long path cut from the left still says where; the other columns lose what they say.
  const cutOrder = (): number[] => [...shown].sort((a, b) => Number(columns[b]?.keep === "end") - Number(columns[a]?.keep === "end"));
  const widths = [...natural];
  const total = (): number => shown.reduce((sum, i) => sum + (widths[i] ?? 0), 0) + GAP.length * (shown.length - 1);
  for (;;) {
    let excess = total() - width;
    if (excess <= 0) break;
    for (const i of cutOrder()) {
      const min = narrowest[i];
      const w = widths[i] ?? 0;
      if (min === undefined || w <= min) continue;
      const cut = Math.min(excess, w - min);
      widths[i] = w - cut;
      excess -= cut;
    }
    if (excess <= 0) break;
    const drop = shown.reduce((worst, i) => ((columns[i]?.dropOrder ?? 0) > (columns[worst]?.dropOrder ?? 0) ? i : worst), shown[0] ?? 0);
    if ((columns[drop]?.dropOrder ?? 0) === 0) break;
    shown = shown.filter((i) => i !== drop);
    // A dropped column frees room: let the cut ones grow back.
    for (const i of shown) widths[i] = natural[i] ?? 0;
  }
  const line = (cells: readonly string[]): string =>
    shown
      .map((i, k) => {
        const column = columns[i] as TableColumn;
        const w = widths[i] ?? 0;
        const text = fitToWidth(cells[i] ?? "", w, column.keep ?? "start");
        const pad = " ".repeat(Math.max(0, w - displayWidth(text)));
        if (column.align === "right") return pad + text;
        return k === shown.length - 1 ? text : text + pad;
      })
      .join(GAP);
  return `${[line(columns.map((c) => c.header)), ...rows.map(line)].join("\n")}\n`;
}

/** The narrowest width at which the column's different cells stay different once cut (widening never merges two). */
function distinctWidth(rows: readonly (readonly string[])[], i: number, column: TableColumn): number {
  const cells = [...new Set(rows.map((row) => row[i] ?? ""))];
  const apart = (w: number): boolean => new Set(cells.map((cell) => fitToWidth(cell, w, column.keep ?? "start"))).size === cells.length;
  let low = 1;
  let high = Math.max(1, ...cells.map(displayWidth));
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (apart(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

function fitToWidth(text: string, width: number, keep: "start" | "end"): string {
  if (displayWidth(text) <= width) return text;
  if (keep === "start") return cutToWidth(text, width).text;
  const chars = [...text];
  let out = "";
  for (let i = chars.length - 1; i >= 0 && displayWidth(`…${chars[i]}${out}`) <= width; i--) out = `${chars[i]}${out}`;
  return `…${out}`;
}
