/**
 * Records as a scanner builds them (one object per request, in a per-file map) and as everything after the
 * scan holds them (`RecordColumns`: typed arrays). Only the file being read is ever held as objects.
 */
import {
  CUMULATIVE,
  type RecordColumns,
  REPORTED_COST,
  SIDECHAIN,
  TOKEN_FIELDS,
  type TokenCounts,
  type UsageRecord,
  zeroTokens,
} from "./types.ts";

/** Bytes of one file's columns laid out as `columnViews` lays them out. */
export function columnBytes(length: number): number {
  return (4 + TOKEN_FIELDS) * 8 * length + 4 * length + length;
}

/**
 * Columns of `length` rows as views of one buffer from `offset` (8-aligned): the Float64 columns first, so every
 * view is aligned. A scan's columns are made so (one allocation per file), and the cache stores and loads them
 * as this block (cache.ts).
 */
export function columnViews(
  buffer: ArrayBufferLike,
  offset: number,
  length: number,
  models: string[],
  threads?: (string | null)[] | undefined,
): RecordColumns {
  const f64 = 8 * length;
  const columns: RecordColumns = {
    length,
    keyHi: new Float64Array(buffer, offset, length),
    keyLo: new Float64Array(buffer, offset + f64, length),
    time: new Float64Array(buffer, offset + 2 * f64, length),
    cost: new Float64Array(buffer, offset + 3 * f64, length),
    tokens: new Float64Array(buffer, offset + 4 * f64, length * TOKEN_FIELDS),
    model: new Int32Array(buffer, offset + (4 + TOKEN_FIELDS) * f64, length),
    models,
    flags: new Uint8Array(buffer, offset + (4 + TOKEN_FIELDS) * f64 + 4 * length, length),
  };
  return threads === undefined ? columns : { ...columns, threads };
}

function columnsOfLength(length: number, models: string[]): RecordColumns {
  return columnViews(new ArrayBuffer(columnBytes(length)), 0, length, models);
}

/** A file's records, in the order given, as columns. */
export function toColumns(records: readonly UsageRecord[]): RecordColumns {
  const out = new ColumnsWriter(records.length, []);
  records.forEach((record, i) => {
    out.write(i, record);
  });
  return out.finish();
}

/** The rows of some columns as records again (the inverse of `toColumns`). */
export function recordsOf(c: RecordColumns): UsageRecord[] {
  return Array.from({ length: c.length }, (_, i) => {
    const hi = c.keyHi[i] ?? 0;
    const lo = c.keyLo[i] ?? 0;
    const flags = c.flags[i] ?? 0;
    const time = c.time[i] ?? Number.NaN;
    const tokens = zeroTokens();
    readTokens(tokens, c.tokens, i);
    const record: UsageRecord = {
      key: { id: `${hi}.${lo}`, hi, lo },
      time: Number.isNaN(time) ? null : time,
      model: c.models[c.model[i] ?? -1] ?? null,
      tokens,
      costUsd: (flags & REPORTED_COST) !== 0 ? (c.cost[i] ?? 0) : null,
      sidechain: (flags & SIDECHAIN) !== 0,
    };
    return (flags & CUMULATIVE) !== 0 ? { ...record, cumulative: true, thread: c.threads?.[i] ?? record.key.id } : record;
  });
}

/** Columns of a known length, filled row by row from records or from the rows of other columns. */
class ColumnsWriter {
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
 * The same columns in a block of their own (laid out as `columnViews`): a loaded file's columns are views of the
 * whole loaded cache, which would be copied whole if they were posted to a worker as they are.
 */
export function compactColumns(c: RecordColumns): RecordColumns {
  const out = new ColumnsWriter(c.length, c.models);
  out.copyRows(0, c, 0, c.length);
  return out.finish();
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
