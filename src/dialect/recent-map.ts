/**
 * A map of the latest entries: it keeps at least the last `capacity` set (at most twice that), and lets older ones go
 * a generation at a time. Used for per-message bookkeeping a decoder needs only while a message's lines are still
 * coming. Not one Map with the oldest entry deleted per new one: a Map under such churn keeps replacing its table,
 * and V8 keeps a replaced table's entries reachable from it (for iterators) until a full collection, so every entry
 * it ever held was promoted to the old generation. Two young Maps dropped whole die young.
 */
export class RecentMap<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get(key: K): V | undefined {
    return this.current.get(key) ?? this.previous.get(key);
  }

  set(key: K, value: V): void {
    this.previous.delete(key);
    this.current.set(key, value);
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
    }
  }

  delete(key: K): void {
    this.current.delete(key);
    this.previous.delete(key);
  }
}
