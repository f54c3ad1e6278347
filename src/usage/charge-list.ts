/**
 * Charges as a report reads them: one after the other. A list is an array of charges (a run that merged its
 * requests), the rows of the last result as they were loaded (`PackedCharges`: numbers, never made into objects),
 * or lists joined (an update: the kept files' packed rows and the changed files' new ones). A report sums the
 * packed rows by cell, from their numbers (`sumByCell`); other readers get one object refilled per row. Loading
 * thousands of charges as objects cost a re-run more than all its other work, in making them and in the garbage
 * collector copying them.
 */
import type { Charge, ChargeList, LedgerSession } from "./ledger.ts";
import { type UsageFigures, zeroTokens } from "./types.ts";

/** Numbers per packed charge (`packCharges`, `PackedCharges`). */
export const PACKED_ROW = 15;

/**
 * The charges as rows of `PACKED_ROW` numbers: session index, model index (-1: none), sidechain, time (NaN: none),
 * six token counts, reported USD (NaN: none), estimated USD, unpriced, requests, day (NaN: none); and the models
 * the indices are of. Packed rows (a kept file's, in an update) are copied as they are, their session and model
 * indices translated: only the changed files' charges are read one by one.
 */
export function packCharges(charges: ChargeList, sessionIndex: ReadonlyMap<string, number>): { rows: Float64Array; models: string[] } {
  const { chunks, models } = packChargeChunks(charges, sessionIndex);
  const rows = new Float64Array(charges.length * PACKED_ROW);
  let at = 0;
  for (const chunk of chunks) {
    rows.set(chunk, at);
    at += chunk.length;
  }
  return { rows, models };
}

/**
 * `packCharges`' rows as the chunks they are made of, one after the other: packed rows whose indices stay the
 * same (an update that kept every session in its place) are views of the rows they were loaded in, not copies.
 */
export function packChargeChunks(
  charges: ChargeList,
  sessionIndex: ReadonlyMap<string, number>,
): { chunks: Float64Array[]; models: string[] } {
  const models: string[] = [];
  const modelIndex = new Map<string, number>();
  const indexOf = (model: string | null): number => {
    if (model === null) return -1;
    let index = modelIndex.get(model);
    if (index === undefined) {
      index = models.push(model) - 1;
      modelIndex.set(model, index);
    }
    return index;
  };
  const chunks: Float64Array[] = [];
  const translations = new PerIndexSpace<Translation>();
  for (const run of runsOf(charges)) {
    if (run instanceof PackedCharges) {
      const translation = translations.get(run.source, () => {
        const sessions = Int32Array.from(run.source.sessions, (session) => sessionIndex.get(session.key) ?? -1);
        const models = Int32Array.from(run.source.models, indexOf);
        return { sessions, models, same: sessions.every((s, i) => s === i) && models.every((m, i) => m === i) };
      });
      chunks.push(run.packed(translation));
    } else {
      const rows = new Float64Array(run.length * PACKED_ROW);
      let at = 0;
      run.forEach((charge) => {
        packRow(rows, at, charge, sessionIndex.get(charge.session) ?? -1, indexOf(charge.model));
        at += PACKED_ROW;
      });
      chunks.push(rows);
    }
  }
  return { chunks, models };
}

/** Each index of a packed source's sessions and models, in the list being packed. */
interface Translation {
  readonly sessions: Int32Array;
  readonly models: Int32Array;
  /** Every index is the same in both (an update that kept every session in its place): rows are copied as they are. */
  readonly same: boolean;
}

/** A charge as row `at` of `rows` (the layout `packCharges` gives). */
function packRow(rows: Float64Array, at: number, c: Charge, session: number, model: number): void {
  const t = c.tokens;
  rows[at] = session;
  rows[at + 1] = model;
  rows[at + 2] = c.sidechain ? 1 : 0;
  rows[at + 3] = c.time ?? Number.NaN;
  rows[at + 4] = t.input;
  rows[at + 5] = t.output;
  rows[at + 6] = t.cacheRead;
  rows[at + 7] = t.cacheWrite;
  rows[at + 8] = t.cacheWrite1h;
  rows[at + 9] = t.reasoning;
  rows[at + 10] = c.costUsd ?? Number.NaN;
  rows[at + 11] = c.estimated?.usd ?? 0;
  rows[at + 12] = c.estimated?.unpriced === true ? 1 : 0;
  rows[at + 13] = c.requests ?? 1;
  rows[at + 14] = c.day ?? Number.NaN;
}

/** The name a charge without a model is listed under in a report. */
export const UNKNOWN_MODEL = "(unknown model)";

/** Row `r` of packed charges added to `into`, as `addCharge` adds a condensed charge (costs in the same order). */
function addRow(into: UsageFigures, rows: Float64Array, r: number, model: string): void {
  const t = into.tokens;
  t.input += rows[r + 4] ?? 0;
  t.output += rows[r + 5] ?? 0;
  t.cacheRead += rows[r + 6] ?? 0;
  t.cacheWrite += rows[r + 7] ?? 0;
  t.cacheWrite1h += rows[r + 8] ?? 0;
  t.reasoning += rows[r + 9] ?? 0;
  into.requests += rows[r + 13] ?? 1;
  into.models.add(model);
  const reported = rows[r + 10] ?? Number.NaN;
  if (!Number.isNaN(reported)) into.costUsd += reported;
  if (rows[r + 12] === 1) into.unpricedModels.add(model);
  const estimated = rows[r + 11] ?? 0;
  into.costUsd += estimated;
  into.estimatedUsd += estimated;
}

/** A charge as `PackedCharges` refills it. */
type Refilled = { -readonly [K in keyof Charge]-?: Charge[K] } & {
  tokens: ReturnType<typeof zeroTokens>;
  estimated: { usd: number; unpriced: boolean };
};

/** Packed rows (`packCharges`) and the sessions and models their indices are of. */
interface PackedSource {
  readonly rows: Float64Array;
  readonly sessions: readonly Pick<LedgerSession, "key" | "agent">[];
  readonly models: readonly string[];
}

/** The figures of each cell `sumByCell` has seen, by the cell's number: shared by the lists of one index space. */
export type CellFigures = Map<number, readonly UsageFigures[]>;

/**
 * A value per index space: the sources whose rows index the same sessions and models lists share one (a loaded
 * result's rows, and those of its files brought up to date in its terms, `PackedCharges.alike`).
 */
export class PerIndexSpace<T> {
  private readonly spaces = new Map<PackedSource["sessions"], Map<PackedSource["models"], T>>();

  get(source: PackedSource, make: () => T): T {
    let byModels = this.spaces.get(source.sessions);
    if (byModels === undefined) {
      byModels = new Map();
      this.spaces.set(source.sessions, byModels);
    }
    let value = byModels.get(source.models);
    if (value === undefined) {
      value = make();
      byModels.set(source.models, value);
    }
    return value;
  }
}

/** Rows `first…first + length` of packed charges. */
export class PackedCharges implements ChargeList {
  readonly length: number;
  readonly source: PackedSource;
  private readonly first: number;

  constructor(source: PackedSource, first = 0, length = source.rows.length / PACKED_ROW) {
    this.source = source;
    this.first = first;
    this.length = length;
  }

  /** Rows `from…from + length` of this list. */
  slice(from: number, length: number): PackedCharges {
    return new PackedCharges(this.source, this.first + from, length);
  }

  /** This list and `next` as one, when `next` is the rows right after these (kept files one after the other). */
  joinedWith(next: ChargeList): PackedCharges | undefined {
    if (!(next instanceof PackedCharges) || next.source !== this.source || next.first !== this.first + this.length) return undefined;
    return this.slice(0, this.length + next.length);
  }

  /**
   * Charges of this list's session as rows in this list's terms (its source's session and model indices), so that
   * a report sums them in the cells it has for the rest (an appended file's rows brought up to date). Undefined
   * when this list has no row to take the session's index from, or a charge is of another session or a model
   * the source does not list.
   */
  alike(charges: readonly Charge[]): PackedCharges | undefined {
    const { rows, sessions, models } = this.source;
    const session = this.length === 0 ? -1 : (rows[this.first * PACKED_ROW] ?? -1);
    const key = sessions[session]?.key;
    if (key === undefined) return undefined;
    const out = new Float64Array(charges.length * PACKED_ROW);
    for (let i = 0; i < charges.length; i++) {
      const charge = charges[i] as Charge;
      const model = charge.model === null ? -1 : models.indexOf(charge.model);
      if (charge.session !== key || (model === -1 && charge.model !== null)) return undefined;
      packRow(out, i * PACKED_ROW, charge, session, model);
    }
    return new PackedCharges({ rows: out, sessions, models });
  }

  /** The rows with their session and model indices translated: a view of them when the indices stay the same. */
  packed(translate: Translation): Float64Array {
    const from = this.first * PACKED_ROW;
    const rows = this.source.rows.subarray(from, from + this.length * PACKED_ROW);
    if (translate.same) return rows;
    const out = rows.slice();
    const end = this.length * PACKED_ROW;
    for (let r = 0; r < end; r += PACKED_ROW) {
      out[r] = translate.sessions[(out[r] ?? 0) | 0] ?? -1;
      const model = (out[r + 1] ?? -1) | 0;
      if (model >= 0) out[r + 1] = translate.models[model] ?? -1;
    }
    return out;
  }

  /**
   * Adds each row to the figures `figuresOf` gives for it, as `addCharge` (aggregate.ts) adds a condensed charge,
   * without a charge per row: the figures depend only on those of the row's session, model and day that `cell`
   * names (its cell), so `figuresOf` is asked once per cell, with that cell's first row as a charge of its own.
   * `cells`: the cells of the source's other lists seen so far (the same numbers are the same cells).
   */
  sumByCell(
    figuresOf: (charge: Charge) => readonly UsageFigures[],
    cell: { session: boolean; model: boolean; day: boolean },
    cells: CellFigures = new Map(),
  ): void {
    const { rows, models } = this.source;
    const end = (this.first + this.length) * PACKED_ROW;
    for (let r = this.first * PACKED_ROW, i = 0; r < end; r += PACKED_ROW, i++) {
      const model = (rows[r + 1] ?? -1) | 0;
      const day = rows[r + 14] ?? Number.NaN;
      const session = cell.session ? (rows[r] ?? 0) | 0 : 0;
      // Session, model and day as one number: under 2^53 for a million sessions, a thousand models and any day.
      const key =
        (session * (models.length + 1) + (cell.model ? model + 1 : 0)) * 2 ** 22 + (cell.day && !Number.isNaN(day) ? day + 2 ** 21 : 0);
      let sums = cells.get(key);
      if (sums === undefined) {
        sums = figuresOf(this.chargeAt(i));
        cells.set(key, sums);
      }
      const name = model < 0 ? UNKNOWN_MODEL : (models[model] ?? UNKNOWN_MODEL);
      // Indexed, not for-of: no iterator per row in code not yet optimised.
      for (let k = 0; k < sums.length; k++) addRow(sums[k] as UsageFigures, rows, r, name);
    }
  }

  /** Row `i` of the list as a charge of its own. */
  private chargeAt(i: number): Charge {
    let charge: Charge | undefined;
    this.slice(i, 1).forEach((c) => {
      charge = { ...c, tokens: { ...c.tokens }, estimated: { ...(c.estimated ?? { usd: 0, unpriced: false }) } };
    });
    return charge as Charge;
  }

  forEach(visit: (charge: Charge) => void): void {
    const { rows, sessions, models } = this.source;
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
      // Indices read as small integers (`| 0`): a model index of -1 is no model, not an array read out of bounds.
      const session = sessions[(rows[r] ?? 0) | 0];
      const model = (rows[r + 1] ?? -1) | 0;
      const time = rows[r + 3] ?? Number.NaN;
      const reported = rows[r + 10] ?? Number.NaN;
      const day = rows[r + 14] ?? Number.NaN;
      charge.agent = session?.agent ?? "claude";
      charge.session = session?.key ?? "";
      charge.model = model < 0 ? null : (models[model] ?? null);
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

/** The lists a list is made of, in order (itself, when it is not a join). */
export function chargeRuns(list: ChargeList): ChargeList[] {
  return runsOf(list);
}

/** Lists one after the other, as one (packed rows that follow each other, as one run). */
export function joinCharges(lists: readonly ChargeList[]): ChargeList {
  const runs: ChargeList[] = [];
  for (const list of runsOf({ runs: lists })) {
    const last = runs.at(-1);
    const joined = last instanceof PackedCharges ? last.joinedWith(list) : undefined;
    if (joined === undefined) runs.push(list);
    else runs[runs.length - 1] = joined;
  }
  return new JoinedCharges(runs);
}

class JoinedCharges implements ChargeList {
  readonly length: number;
  readonly runs: readonly ChargeList[];

  constructor(runs: readonly ChargeList[]) {
    this.runs = runs;
    this.length = runs.reduce((sum, list) => sum + list.length, 0);
  }

  forEach(visit: (charge: Charge) => void): void {
    for (const list of this.runs) list.forEach(visit);
  }
}

/** The lists a list is made of (itself, when it is not a join). */
function runsOf(list: ChargeList | { readonly runs: readonly ChargeList[] }): ChargeList[] {
  if (!("runs" in list)) return [list];
  return list.runs.flatMap((run) => runsOf(run));
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
