/**
 * Records as a scanner builds them (one object per request, in a per-file map) and as everything after the
 * scan holds them (`RecordColumns`: typed arrays). Only the file being read is ever held as objects.
 */
import { CUMULATIVE, type RecordColumns, REPORTED_COST, SIDECHAIN, TOKEN_FIELDS, type UsageRecord } from "./types.ts";

function columnsOfLength(length: number, models: string[]): RecordColumns {
  return {
    length,
    keyHi: new Float64Array(length),
    keyLo: new Float64Array(length),
    time: new Float64Array(length),
    cost: new Float64Array(length),
    tokens: new Float64Array(length * TOKEN_FIELDS),
    model: new Int32Array(length),
    models,
    flags: new Uint8Array(length),
  };
}

/** A file's records, in the order given, as columns. */
export function toColumns(records: readonly UsageRecord[]): RecordColumns {
  const models: string[] = [];
  const modelIndex = new Map<string, number>();
  const out = columnsOfLength(records.length, models);
  let threads: (string | null)[] | undefined;
  records.forEach((r, i) => {
    out.keyHi[i] = r.key.hi;
    out.keyLo[i] = r.key.lo;
    out.time[i] = r.time ?? Number.NaN;
    out.cost[i] = r.costUsd ?? 0;
    let model = -1;
    if (r.model !== null) {
      model = modelIndex.get(r.model) ?? models.push(r.model) - 1;
      modelIndex.set(r.model, model);
    }
    out.model[i] = model;
    const t = r.tokens;
    out.tokens.set([t.input, t.output, t.cacheRead, t.cacheWrite, t.cacheWrite1h, t.reasoning], i * TOKEN_FIELDS);
    out.flags[i] = (r.sidechain ? SIDECHAIN : 0) | (r.cumulative === true ? CUMULATIVE : 0) | (r.costUsd !== null ? REPORTED_COST : 0);
    if (r.cumulative === true) {
      threads ??= new Array<string | null>(records.length).fill(null);
      threads[i] = r.thread ?? r.key.id;
    }
  });
  return threads === undefined ? out : { ...out, threads };
}

/** Record `i` of the columns as an object (a grown file's scanner goes on from its earlier records). */
export function recordAt(c: RecordColumns, i: number): UsageRecord {
  const hi = c.keyHi[i] ?? 0;
  const lo = c.keyLo[i] ?? 0;
  const flags = c.flags[i] ?? 0;
  const time = c.time[i] ?? Number.NaN;
  const t = i * TOKEN_FIELDS;
  const record: UsageRecord = {
    key: { id: `${hi}.${lo}`, hi, lo },
    time: Number.isNaN(time) ? null : time,
    model: c.models[c.model[i] ?? -1] ?? null,
    tokens: {
      input: c.tokens[t] ?? 0,
      output: c.tokens[t + 1] ?? 0,
      cacheRead: c.tokens[t + 2] ?? 0,
      cacheWrite: c.tokens[t + 3] ?? 0,
      cacheWrite1h: c.tokens[t + 4] ?? 0,
      reasoning: c.tokens[t + 5] ?? 0,
    },
    costUsd: (flags & REPORTED_COST) !== 0 ? (c.cost[i] ?? 0) : null,
    sidechain: (flags & SIDECHAIN) !== 0,
  };
  return (flags & CUMULATIVE) !== 0 ? { ...record, cumulative: true, thread: c.threads?.[i] ?? record.key.id } : record;
}

/**
 * The same columns in arrays of their own: columns loaded from the cache are views of one large buffer, which
 * would be copied whole if they were posted to a worker as they are.
 */
export function compactColumns(c: RecordColumns): RecordColumns {
  return {
    ...c,
    keyHi: c.keyHi.slice(),
    keyLo: c.keyLo.slice(),
    time: c.time.slice(),
    cost: c.cost.slice(),
    tokens: c.tokens.slice(),
    model: c.model.slice(),
    flags: c.flags.slice(),
  };
}
