/**
 * A scanner's records by key (`RequestKey.id`), with a Map's order: a key set again keeps its place, a key
 * deleted and set again goes last. When a grown file is read on, the records of the earlier read stay the
 * columns they were loaded as: they are looked up by key (a map of their ids, made when first needed), and
 * copied row by row into the result, never made into objects; only the records read now are objects.
 */
import { ColumnsWriter } from "./columns.ts";
import type { RecordColumns, UsageRecord } from "./types.ts";

export class RecordMap {
  private readonly earlier: RecordColumns | undefined;
  /** Row of each earlier record's key, made at the first lookup. */
  private earlierRows: Map<string, number> | undefined;
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

  has(id: string): boolean {
    return this.added.has(id) || this.earlierRow(id) !== undefined;
  }

  delete(id: string): void {
    if (this.added.delete(id)) return;
    const row = this.earlierRow(id);
    if (row === undefined) return;
    this.dropped[row] = 1;
    this.droppedCount++;
    this.replaced.delete(row);
  }

  set(id: string, record: UsageRecord): void {
    const row = this.added.has(id) ? undefined : this.earlierRow(id);
    if (row === undefined) this.added.set(id, record);
    else this.replaced.set(row, record);
  }

  /** The records in order, as columns: the earlier ones kept, then the ones added. */
  columns(): RecordColumns {
    const earlier = this.earlier;
    if (earlier !== undefined && this.droppedCount === 0 && this.replaced.size === 0 && this.added.size === 0) return earlier;
    const out = new ColumnsWriter(this.size, earlier?.models ?? []);
    let at = 0;
    for (let row = 0; row < (earlier?.length ?? 0); row++) {
      if (this.dropped[row] === 1) continue;
      const record = this.replaced.get(row);
      if (record !== undefined) out.write(at++, record);
      else out.copy(at++, earlier as RecordColumns, row);
    }
    for (const record of this.added.values()) out.write(at++, record);
    return out.finish();
  }

  /** The row of a live earlier record with this key, or undefined. */
  private earlierRow(id: string): number | undefined {
    const earlier = this.earlier;
    if (earlier === undefined || earlier.length === 0) return undefined;
    if (this.earlierRows === undefined) {
      this.earlierRows = new Map();
      for (let row = 0; row < earlier.length; row++) this.earlierRows.set(`${earlier.keyHi[row]}.${earlier.keyLo[row]}`, row);
    }
    const row = this.earlierRows.get(id);
    return row === undefined || this.dropped[row] === 1 ? undefined : row;
  }
}
