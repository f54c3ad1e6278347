/**
 * Every request priced on its own (a long-context tier depends on the request, not on a sum), then summed into
 * one row per file that owns it (its session's), model, subagent or not, day in the report's time zone and kind of
 * cost: the rows a report needs (days, weeks and months are made of days), a few thousand where the requests are
 * hundreds of thousands.
 *
 * Requests are taken in first-seen order, as the ledger's `forEachCharge` hands them over, and the rows are kept
 * file by file in merge order, each file's in the order of their first request: every sum is made in the same
 * order whether the files came from the cache or not. A request is almost always charged from a record of the file that owns it:
 * that case reads the file's columns directly, with the file's session, model prices and rows looked up once per
 * file, not once per request; the rest (a copy's record with a larger output, Codex running totals) goes through
 * the charge view.
 */
import { readTokens } from "./columns.ts";
import { localDays } from "./aggregate.ts";
import {
  type Charge,
  type ChargeView,
  emptyView,
  fillView,
  forEachThreadCharge,
  type Ledger,
  type LedgerSession,
  type Merged,
} from "./ledger.ts";
import { costAt } from "../prices/price.ts";
import type { ModelPrice } from "../prices/price-table.ts";
import type { Pricer } from "./prices.ts";
import { addTokens, CUMULATIVE, type FileScan, type RecordColumns, REPORTED_COST, SIDECHAIN, totalTokens, zeroTokens } from "./types.ts";

/** A condensed charge, summed in place. */
type Row = Omit<Charge, "costUsd" | "estimated" | "requests" | "tokens"> & {
  readonly tokens: ReturnType<typeof zeroTokens>;
  costUsd: number | null;
  requests: number;
  readonly estimated: { usd: number; unpriced: boolean };
};

/** What a row says of its session. */
type Session = Pick<LedgerSession, "key" | "agent">;

/** The slot of a request without a time (a day's slot is `day * 8 + kind`; days before 1970 are negative). */
const NO_TIME = -(2 ** 40);

/** A row's slot among its file's rows of one model: its day, and its kind of cost and subagent flag. */
function slotOf(day: number | undefined, reported: boolean, unpriced: boolean, sidechain: boolean): number {
  const kind = (reported ? 0 : unpriced ? 2 : 4) + (sidechain ? 1 : 0);
  return (day === undefined ? NO_TIME : day * 8) + kind;
}

/**
 * The ledger with one charge per row: every file's rows, file after file in merge order. Summed in this one order,
 * a report's figures are the same to the last digit however the scans were come by (read now or cached).
 */
export function condense(merged: Merged, pricer: Pricer, timeZone: string): Ledger {
  const rows = new RowTable(pricer, localDays(timeZone), merged.scans.length);
  const view = emptyView();
  const cumulative: number[] = [];
  let owner = -1;
  for (let request = 0; request < merged.requests; request++) {
    const scan = merged.chosenScan[request] ?? 0;
    const row = merged.chosenRow[request] ?? 0;
    const columns = (merged.scans[scan] as FileScan).records;
    if (((columns.flags[row] ?? 0) & CUMULATIVE) !== 0) {
      cumulative.push(request);
      continue;
    }
    const ownerScan = merged.ownerScan[request] ?? 0;
    if (ownerScan !== owner) {
      owner = ownerScan;
      rows.enterFile(owner, merged.sessionOfScan[owner] as LedgerSession, (merged.scans[owner] as FileScan).records);
    }
    if (scan === owner) rows.addOwn(row);
    else {
      fillView(view, merged, request);
      rows.addView(view);
    }
  }
  forEachThreadCharge(merged, cumulative, (charge) => rows.addView(charge));
  const charges = merged.scans.flatMap((_, s) => rows.rowsOf(s));
  return { charges, sessions: merged.sessions, duplicates: merged.duplicates, timeZone };
}

const NO_COLUMNS = {
  time: new Float64Array(0),
  cost: new Float64Array(0),
  tokens: new Float64Array(0),
  model: new Int32Array(0),
  models: [],
  flags: new Uint8Array(0),
} as const;

/** The rows of each owning file, looked up by model, then a number for the day, kind of cost and subagent flag. */
class RowTable {
  private readonly rows: Row[][];
  private readonly byOwner: Map<string | null, Map<number, Row>>[];
  /** The file being condensed: its index, session, columns, and per model index (-1 last) its prices and rows. */
  private owner = 0;
  private session: Session | undefined;
  /** The entered file's columns, taken out of it once: `addOwn` reads them per request. */
  private columns: Pick<RecordColumns, "time" | "cost" | "tokens" | "model" | "models" | "flags"> = NO_COLUMNS;
  private prices: (ModelPrice | null | undefined)[] = [];
  private slots: (Map<number, Row> | undefined)[] = [];
  private readonly tokens = zeroTokens();
  private readonly pricer: Pricer;
  private readonly dayOf: (time: number) => number;

  constructor(pricer: Pricer, dayOf: (time: number) => number, files: number) {
    this.pricer = pricer;
    this.dayOf = dayOf;
    this.rows = Array.from({ length: files }, () => []);
    this.byOwner = Array.from({ length: files }, () => new Map());
  }

  rowsOf(owner: number): Row[] {
    return this.rows[owner] ?? [];
  }

  enterFile(owner: number, session: Session, columns: RecordColumns): void {
    this.owner = owner;
    this.session = session;
    const { time, cost, tokens, model, models, flags } = columns;
    this.columns = { time, cost, tokens, model, models, flags };
    this.prices = new Array(columns.models.length + 1);
    this.slots = new Array(columns.models.length + 1);
  }

  /** Row `row` of the file entered, charged to its session. */
  addOwn(row: number): void {
    const c = this.columns;
    const t = this.tokens;
    readTokens(t, c.tokens, row);
    const flags = c.flags[row] ?? 0;
    const modelIndex = c.model[row] ?? -1;
    const index = modelIndex < 0 ? c.models.length : modelIndex;
    const model = c.models[modelIndex] ?? null;
    const reported = (flags & REPORTED_COST) !== 0 ? (c.cost[row] ?? 0) : null;
    let estimated: number | undefined = 0;
    if (reported === null) {
      let price = this.prices[index];
      if (price === undefined) {
        price = this.pricer.priceOf(model) ?? null;
        this.prices[index] = price;
      }
      estimated = price === null ? undefined : costAt(price, t);
    }
    let slots = this.slots[index];
    if (slots === undefined) {
      slots = this.slotsOf(this.owner, model);
      this.slots[index] = slots;
    }
    const time = c.time[row] ?? Number.NaN;
    const session = this.session as Session;
    this.add(this.owner, slots, session, model, Number.isNaN(time) ? null : time, reported, estimated, (flags & SIDECHAIN) !== 0);
  }

  /** A charge as the view holds it (priced by name). */
  addView(charge: ChargeView): void {
    const estimated = charge.costUsd === null ? this.pricer.cost(charge.model, charge.tokens) : 0;
    const session = { key: charge.session, agent: charge.agent };
    const slots = this.slotsOf(charge.owner, charge.model);
    for (const kind of ["input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning"] as const) {
      this.tokens[kind] = charge.tokens[kind];
    }
    this.add(charge.owner, slots, session, charge.model, charge.time, charge.costUsd, estimated, charge.sidechain);
  }

  /** Adds `this.tokens` and the costs to their row (made when new, in the order of first requests). */
  private add(
    owner: number,
    slots: Map<number, Row>,
    session: Session,
    model: string | null,
    time: number | null,
    reported: number | null,
    estimated: number | undefined,
    sidechain: boolean,
  ): void {
    const t = this.tokens;
    const unpriced = estimated === undefined && totalTokens(t) > 0;
    const day = time === null ? undefined : this.dayOf(time);
    const slot = slotOf(day, reported !== null, unpriced, sidechain);
    let row = slots.get(slot);
    if (row === undefined) {
      row = {
        agent: session.agent,
        session: session.key,
        model,
        sidechain,
        // A row's time is its first request's: any time of the row gives its day.
        time,
        ...(day === undefined ? {} : { day }),
        tokens: zeroTokens(),
        costUsd: reported === null ? null : 0,
        requests: 0,
        estimated: { usd: 0, unpriced },
      };
      slots.set(slot, row);
      this.rows[owner]?.push(row);
    }
    addTokens(row.tokens, t);
    row.requests += 1;
    if (reported !== null) row.costUsd = (row.costUsd ?? 0) + reported;
    row.estimated.usd += estimated ?? 0;
  }

  private slotsOf(owner: number, model: string | null): Map<number, Row> {
    const models = this.byOwner[owner] as Map<string | null, Map<number, Row>>;
    let slots = models.get(model);
    if (slots === undefined) {
      slots = new Map();
      models.set(model, slots);
    }
    return slots;
  }
}
