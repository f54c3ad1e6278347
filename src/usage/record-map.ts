/**
 * A scanner's records by key, in a Map's order: a key set again keeps its place, a key deleted and set again goes
 * last. When a grown file is read on, its earlier records (columns, from the cache) are made into records first,
 * so the last record of a request still wins after an append.
 */
import { recordsOf, toColumns } from "./columns.ts";
import type { RecordColumns, RequestKey, UsageRecord } from "./types.ts";

export class RecordMap {
  private readonly records = new Map<string, UsageRecord>();

  constructor(earlier: RecordColumns | undefined) {
    if (earlier !== undefined) for (const record of recordsOf(earlier)) this.records.set(record.key.id, record);
  }

  get size(): number {
    return this.records.size;
  }

  has(key: RequestKey): boolean {
    return this.records.has(key.id);
  }

  delete(key: RequestKey): void {
    this.records.delete(key.id);
  }

  set(key: RequestKey, record: UsageRecord): void {
    this.records.set(key.id, record);
  }

  /** The records in order, as columns. */
  columns(): RecordColumns {
    return toColumns([...this.records.values()]);
  }
}
