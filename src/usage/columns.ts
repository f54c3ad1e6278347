/**
 * Records as a scanner builds them (one object per request, in a per-file map) and as everything after the
 * scan holds them (`RecordColumns`: typed arrays). Only the file being read is ever held as objects.
 */
import { CUMULATIVE, type RecordColumns, REPORTED_COST, SIDECHAIN, TOKEN_FIELDS, type TokenCounts, type UsageRecord } from "./types.ts";

/**
 * Columns of `length` rows, views of one buffer: one allocation per file, not seven (a profile of a run after 93
 * files grew put 6 ms in allocating their columns). The Float64 columns come first, so every view is aligned.
 */
function columnsOfLength(length: number, models: string[]): RecordColumns {
  const f64 = 8 * length;
  const buffer = new ArrayBuffer((4 + TOKEN_FIELDS) * f64 + 4 * length + length);
  return {
    length,
    keyHi: new Float64Array(buffer, 0, length),
    keyLo: new Float64Array(buffer, f64, length),
    time: new Float64Array(buffer, 2 * f64, length),
    cost: new Float64Array(buffer, 3 * f64, length),
    tokens: new Float64Array(buffer, 4 * f64, length * TOKEN_FIELDS),
    model: new Int32Array(buffer, (4 + TOKEN_FIELDS) * f64, length),
    models,
    flags: new Uint8Array(buffer, (4 + TOKEN_FIELDS) * f64 + 4 * length, length),
  };
}

/** A file's records, in the order given, as columns. */
export function toColumns(records: readonly UsageRecord[]): RecordColumns {
  const out = new ColumnsWriter(records.length, []);
  records.forEach((record, i) => {
    out.write(i, record);
  });
  return out.finish();
}

/** Columns of a known length, filled row by row from records or from the rows of other columns. */
export class ColumnsWriter {
  private readonly out: RecordColumns;
  private readonly models: string[];
  private readonly modelIndex = new Map<string, number>();
  private threads: (string | null)[] | undefined;

  /** `models`: the models of columns whose rows will be copied (kept at the same indices). */
  constructor(length: number, models: readonly string[]) {
    this.models = [...models];
    for (const [i, model] of this.models.entries()) this.modelIndex.set(model, i);
    this.out = columnsOfLength(length, this.models);
  }

  write(i: number, r: UsageRecord): void {
    const out = this.out;
    out.keyHi[i] = r.key.hi;
    out.keyLo[i] = r.key.lo;
    out.time[i] = r.time ?? Number.NaN;
    out.cost[i] = r.costUsd ?? 0;
    let model = -1;
    if (r.model !== null) {
      model = this.modelIndex.get(r.model) ?? this.models.push(r.model) - 1;
      this.modelIndex.set(r.model, model);
    }
    out.model[i] = model;
    writeTokens(out.tokens, i, r.tokens);
    out.flags[i] = (r.sidechain ? SIDECHAIN : 0) | (r.cumulative === true ? CUMULATIVE : 0) | (r.costUsd !== null ? REPORTED_COST : 0);
    if (r.cumulative === true) this.threadsOf()[i] = r.thread ?? r.key.id;
  }

  /**
   * Rows `row` to `row + count` of `from` (whose models this writer was made with) as rows `i` on: each column
   * copied as one block (an appended file's earlier rows are one run).
   */
  copyRows(i: number, from: RecordColumns, row: number, count: number): void {
    const out = this.out;
    const { keyHi, keyLo, time, cost, model, tokens, flags } = from;
    const end = row + count;
    out.keyHi.set(keyHi.subarray(row, end), i);
    out.keyLo.set(keyLo.subarray(row, end), i);
    out.time.set(time.subarray(row, end), i);
    out.cost.set(cost.subarray(row, end), i);
    out.model.set(model.subarray(row, end), i);
    out.tokens.set(tokens.subarray(row * TOKEN_FIELDS, end * TOKEN_FIELDS), i * TOKEN_FIELDS);
    out.flags.set(flags.subarray(row, end), i);
    for (let k = 0; k < count; k++) {
      if (((flags[row + k] ?? 0) & CUMULATIVE) === 0) continue;
      this.threadsOf()[i + k] = from.threads?.[row + k] ?? `${out.keyHi[i + k]}.${out.keyLo[i + k]}`;
    }
  }

  finish(): RecordColumns {
    return this.threads === undefined ? this.out : { ...this.out, threads: this.threads };
  }

  private threadsOf(): (string | null)[] {
    this.threads ??= new Array<string | null>(this.out.length).fill(null);
    return this.threads;
  }
}

/**
 * The same columns in arrays of their own: columns loaded from the cache are views of one large buffer, which
 * would be copied whole if they were posted to a worker as they are.
 */
export function compactColumns(c: RecordColumns): RecordColumns {
  // Every field named, not spread: a loaded file's models and threads are getters (stored-columns.ts).
  const { threads } = c;
  return {
    length: c.length,
    models: c.models,
    ...(threads === undefined ? {} : { threads }),
    keyHi: c.keyHi.slice(),
    keyLo: c.keyLo.slice(),
    time: c.time.slice(),
    cost: c.cost.slice(),
    tokens: c.tokens.slice(),
    model: c.model.slice(),
    flags: c.flags.slice(),
  };
}

/** Row `row`'s token counts into `into` (the column holds `TOKEN_FIELDS` per row, in `TokenCounts`' order). */
export function readTokens(into: TokenCounts, tokens: Float64Array, row: number): void {
  const at = row * TOKEN_FIELDS;
  into.input = tokens[at] ?? 0;
  into.output = tokens[at + 1] ?? 0;
  into.cacheRead = tokens[at + 2] ?? 0;
  into.cacheWrite = tokens[at + 3] ?? 0;
  into.cacheWrite1h = tokens[at + 4] ?? 0;
  into.reasoning = tokens[at + 5] ?? 0;
}

function writeTokens(tokens: Float64Array, row: number, from: TokenCounts): void {
  const at = row * TOKEN_FIELDS;
  tokens[at] = from.input;
  tokens[at + 1] = from.output;
  tokens[at + 2] = from.cacheRead;
  tokens[at + 3] = from.cacheWrite;
  tokens[at + 4] = from.cacheWrite1h;
  tokens[at + 5] = from.reasoning;
}
