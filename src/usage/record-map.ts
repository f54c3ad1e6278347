/**
 * A scanner's records by key, with a Map's order: a key set again keeps its place, a key deleted and set again
 * goes last. When a grown file is read on, the records of the earlier read stay the columns they were loaded
 * as: they are looked up by key (a table of their two hashes, made when first needed: no text per record), and
 * copied row by row into the result, never made into objects; only the records read now are objects.
 */
import { ColumnsWriter } from "./columns.ts";
import type { RecordColumns, RequestKey, UsageRecord } from "./types.ts";

export class RecordMap {
  private readonly earlier: RecordColumns | undefined;
  /** Row of each earlier record's key, made at the first lookup. */
  private earlierRows: RowIndex | undefined;
  /** Earlier rows deleted (or set again after a delete: they are in `added` then). */
  private readonly dropped: Uint8Array;
  private droppedCount = 0;
  /** Earlier rows whose record was set again in place. */
  private readonly replaced = new Map<number, UsageRecord>();
  private readonly added = new Map<string, UsageRecord>();

  constructor(earlier: RecordColumns | undefined) {
    this.earlier = earlier;
    this.dropped = new Uint8Array(earlier?.length ?? 0);
  }

  get size(): number {
    return (this.earlier?.length ?? 0) - this.droppedCount + this.added.size;
  }

  has(key: RequestKey): boolean {
    return this.added.has(key.id) || this.earlierRow(key) !== undefined;
  }

  delete(key: RequestKey): void {
    if (this.added.delete(key.id)) return;
    const row = this.earlierRow(key);
    if (row === undefined) return;
    this.dropped[row] = 1;
    this.droppedCount++;
    this.replaced.delete(row);
  }

  set(key: RequestKey, record: UsageRecord): void {
    const row = this.added.has(key.id) ? undefined : this.earlierRow(key);
    if (row === undefined) this.added.set(key.id, record);
    else this.replaced.set(row, record);
  }

  /** The records in order, as columns: the earlier ones kept, then the ones added. */
  columns(): RecordColumns {
    const earlier = this.earlier;
    if (earlier !== undefined && this.droppedCount === 0 && this.replaced.size === 0 && this.added.size === 0) return earlier;
    const out = new ColumnsWriter(this.size, earlier?.models ?? []);
    let at = 0;
    // Earlier rows kept as they are go over in runs; a dropped or replaced row ends a run.
    let run = 0;
    const length = earlier?.length ?? 0;
    for (let row = 0; row <= length; row++) {
      const record = this.replaced.get(row);
      if (row < length && this.dropped[row] !== 1 && record === undefined) continue;
      if (row > run) {
        out.copyRows(at, earlier as RecordColumns, run, row - run);
        at += row - run;
      }
      run = row + 1;
      if (record !== undefined && this.dropped[row] !== 1) out.write(at++, record);
    }
    for (const record of this.added.values()) out.write(at++, record);
    return out.finish();
  }

  /** The row of a live earlier record with this key, or undefined. */
  private earlierRow(key: RequestKey): number | undefined {
    const earlier = this.earlier;
    if (earlier === undefined || earlier.length === 0) return undefined;
    this.earlierRows ??= new RowIndex(earlier);
    const row = this.earlierRows.find(key.hi, key.lo);
    return row === undefined || this.dropped[row] === 1 ? undefined : row;
  }
}

/** The row of each key of some columns: an open-addressing table of the two hashes (as in ledger.ts). */
class RowIndex {
  private readonly keys: Float64Array;
  /** Row + 1 per slot; 0: empty. */
  private readonly rows: Int32Array;
  private readonly mask: number;

  constructor(columns: RecordColumns) {
    let size = 16;
    while (size < columns.length * 1.5) size *= 2;
    this.keys = new Float64Array(size * 2);
    this.rows = new Int32Array(size);
    this.mask = size - 1;
    const { keyHi, keyLo } = columns;
    for (let row = 0; row < columns.length; row++) {
      const slot = this.slotOf(keyHi[row] ?? 0, keyLo[row] ?? 0);
      this.keys[2 * slot] = keyHi[row] ?? 0;
      this.keys[2 * slot + 1] = keyLo[row] ?? 0;
      // A key twice in the columns (not made by a scanner): the later row, as a Map would keep.
      this.rows[slot] = row + 1;
    }
  }

  find(hi: number, lo: number): number | undefined {
    const held = this.rows[this.slotOf(hi, lo)] ?? 0;
    return held === 0 ? undefined : held - 1;
  }

  /** The key's slot, or the empty slot where it would go. */
  private slotOf(hi: number, lo: number): number {
    let slot = Math.imul(lo >>> 0, 0x9e3779b1) & this.mask;
    for (;;) {
      const held = this.rows[slot] ?? 0;
      if (held === 0 || (this.keys[2 * slot] === hi && this.keys[2 * slot + 1] === lo)) return slot;
      slot = (slot + 1) & this.mask;
    }
  }
}
