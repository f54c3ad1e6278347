/**
 * Charges as a report reads them: one after the other. A list is an array of charges (a run that merged its
 * requests), the rows of the last result as they were loaded (`PackedCharges`: numbers, never made into objects),
 * or lists joined (an update: the kept files' packed rows and the changed files' new ones). A report over
 * unchanged files reads the packed rows through one object refilled per row: loading thousands of charges as
 * objects cost a re-run more than all its other work, in making them and in the garbage collector copying them.
 */
import type { Charge, LedgerSession } from "./ledger.ts";
import { zeroTokens } from "./types.ts";

export interface ChargeList {
  readonly length: number;
  /**
   * Each charge in order. A packed list hands over one object, refilled for each row: read it, do not keep it
   * (copy what must be kept).
   */
  forEach(visit: (charge: Charge) => void): void;
}

/** Numbers per packed charge (`packCharges`, `PackedCharges`). */
export const PACKED_ROW = 15;

/**
 * The charges as rows of `PACKED_ROW` numbers: session index, model index (-1: none), sidechain, time (NaN: none),
 * six token counts, reported USD (NaN: none), estimated USD, unpriced, requests, day (NaN: none).
 */
export function packCharges(charges: ChargeList, sessionIndex: ReadonlyMap<string, number>, models: readonly string[]): Float64Array {
  const modelIndex = new Map(models.map((model, i) => [model, i]));
  const rows = new Float64Array(charges.length * PACKED_ROW);
  let r = 0;
  charges.forEach((c) => {
    const t = c.tokens;
    rows[r] = sessionIndex.get(c.session) ?? -1;
    rows[r + 1] = c.model === null ? -1 : (modelIndex.get(c.model) ?? -1);
    rows[r + 2] = c.sidechain ? 1 : 0;
    rows[r + 3] = c.time ?? Number.NaN;
    rows[r + 4] = t.input;
    rows[r + 5] = t.output;
    rows[r + 6] = t.cacheRead;
    rows[r + 7] = t.cacheWrite;
    rows[r + 8] = t.cacheWrite1h;
    rows[r + 9] = t.reasoning;
    rows[r + 10] = c.costUsd ?? Number.NaN;
    rows[r + 11] = c.estimated?.usd ?? 0;
    rows[r + 12] = c.estimated?.unpriced === true ? 1 : 0;
    rows[r + 13] = c.requests ?? 1;
    rows[r + 14] = c.day ?? Number.NaN;
    r += PACKED_ROW;
  });
  return rows;
}

/** A charge as `PackedCharges` refills it. */
type Refilled = { -readonly [K in keyof Charge]-?: Charge[K] } & {
  tokens: ReturnType<typeof zeroTokens>;
  estimated: { usd: number; unpriced: boolean };
};

/** Rows `first…first + length` of packed charges (`packCharges`), their sessions and models by index. */
export class PackedCharges implements ChargeList {
  readonly length: number;
  private readonly rows: Float64Array;
  private readonly first: number;
  private readonly sessions: readonly Pick<LedgerSession, "key" | "agent">[];
  private readonly models: readonly string[];

  constructor(
    rows: Float64Array,
    sessions: readonly Pick<LedgerSession, "key" | "agent">[],
    models: readonly string[],
    first = 0,
    length = rows.length / PACKED_ROW,
  ) {
    this.rows = rows;
    this.sessions = sessions;
    this.models = models;
    this.first = first;
    this.length = length;
  }

  /** Rows `from…from + length` of this list. */
  slice(from: number, length: number): PackedCharges {
    return new PackedCharges(this.rows, this.sessions, this.models, this.first + from, length);
  }

  /** This list and `next` as one, when `next` is the rows right after these (kept files one after the other). */
  joinedWith(next: ChargeList): PackedCharges | undefined {
    if (!(next instanceof PackedCharges) || next.rows !== this.rows || next.first !== this.first + this.length) return undefined;
    return next.sessions === this.sessions && next.models === this.models ? this.slice(0, this.length + next.length) : undefined;
  }

  forEach(visit: (charge: Charge) => void): void {
    const rows = this.rows;
    const charge: Refilled = {
      agent: "claude",
      session: "",
      time: null,
      day: undefined,
      model: null,
      tokens: zeroTokens(),
      costUsd: null,
      sidechain: false,
      requests: 1,
      estimated: { usd: 0, unpriced: false },
    };
    const end = (this.first + this.length) * PACKED_ROW;
    for (let r = this.first * PACKED_ROW; r < end; r += PACKED_ROW) {
      const session = this.sessions[rows[r] ?? 0];
      const time = rows[r + 3] ?? Number.NaN;
      const reported = rows[r + 10] ?? Number.NaN;
      const day = rows[r + 14] ?? Number.NaN;
      charge.agent = session?.agent ?? "claude";
      charge.session = session?.key ?? "";
      charge.model = this.models[rows[r + 1] ?? -1] ?? null;
      charge.sidechain = rows[r + 2] === 1;
      charge.time = Number.isNaN(time) ? null : time;
      charge.day = Number.isNaN(day) ? undefined : day;
      const t = charge.tokens;
      t.input = rows[r + 4] ?? 0;
      t.output = rows[r + 5] ?? 0;
      t.cacheRead = rows[r + 6] ?? 0;
      t.cacheWrite = rows[r + 7] ?? 0;
      t.cacheWrite1h = rows[r + 8] ?? 0;
      t.reasoning = rows[r + 9] ?? 0;
      charge.costUsd = Number.isNaN(reported) ? null : reported;
      charge.estimated.usd = rows[r + 11] ?? 0;
      charge.estimated.unpriced = rows[r + 12] === 1;
      charge.requests = rows[r + 13] ?? 1;
      visit(charge);
    }
  }
}

/** Lists one after the other, as one (packed rows that follow each other, as one run). */
export function joinCharges(lists: readonly ChargeList[]): ChargeList {
  const runs: ChargeList[] = [];
  for (const list of lists) {
    const last = runs.at(-1);
    const joined = last instanceof PackedCharges ? last.joinedWith(list) : undefined;
    if (joined === undefined) runs.push(list);
    else runs[runs.length - 1] = joined;
  }
  return {
    length: runs.reduce((sum, list) => sum + list.length, 0),
    forEach(visit) {
      for (const list of runs) list.forEach(visit);
    },
  };
}

/** Each charge of the list as an object of its own (tests, and callers that keep charges). */
export function chargeArray(list: ChargeList): Charge[] {
  const out: Charge[] = [];
  list.forEach((charge) => {
    const { estimated } = charge;
    out.push({ ...charge, tokens: { ...charge.tokens }, ...(estimated === undefined ? {} : { estimated: { ...estimated } }) });
  });
  return out;
}
