/** Ids a validator remembers per format: the same bound for each (docs/cli.md, `validate`). */
export const VALIDATOR_RECENT_IDS = 65_536;

/**
 * Ids a validator remembers to report a repeat, the oldest forgotten past `capacity`: a stream's rules that ask for
 * unique ids (an event id, a completed message) hold memory that does not grow with the stream, at the price of not
 * seeing a repeat of an id older than the last `capacity` (each format's doc says its capacity).
 */
export class RecentIds<V = true> {
  private readonly ids = new Map<string, V>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  get(id: string): V | undefined {
    return this.ids.get(id);
  }

  /** Remembers `id` (as the newest, when it was known). */
  set(id: string, value: V): void {
    this.ids.delete(id);
    this.ids.set(id, value);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.keys().next().value as string);
  }

  delete(id: string): void {
    this.ids.delete(id);
  }

  clear(): void {
    this.ids.clear();
  }
}
