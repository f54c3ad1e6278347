/**
 * An integer the input wrote beyond ±(2^53 − 1), which a JavaScript number cannot hold exactly
 * (Codex's `history_log_id: 1104763548210798038` parses to …798100). The framer puts one of these
 * where JSON.parse rounded, keeping the digits as written; `stringifyRecord` writes them back as
 * bare number text, so every writer carries them without loss.
 *
 * It is the one class in the model: plain data cannot say "this number, exactly as written". The
 * JSON value types live here with it (events.ts re-exports them), so the two files import one way.
 */

/**
 * Any JSON value, as it came off the wire. An integer beyond ±(2^53 − 1) arrives as a
 * `LosslessInteger` (its digits as written), since a number would round it.
 */
export type JsonValue = string | number | LosslessInteger | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object, as it came off the wire. */
export type JsonObject = { [key: string]: JsonValue };

export class LosslessInteger {
  /** The integer as the input wrote it: an optional `-` and digits, no exponent. */
  readonly source: string;

  constructor(source: string) {
    this.source = source;
  }

  /** The nearest double: what JSON.parse would have produced. */
  valueOf(): number {
    return Number(this.source);
  }

  toString(): string {
    return this.source;
  }

  /**
   * What a plain `JSON.stringify` writes: the nearest double, so code that knows nothing of this
   * class sees the same number as before. `stringifyRecord` writes the exact digits instead.
   */
  toJSON(): number {
    return this.valueOf();
  }

  /** True for a LosslessInteger, even one from another copy of the package. */
  static is(value: unknown): value is LosslessInteger {
    if (value instanceof LosslessInteger) return true;
    if (typeof value !== "object" || value === null || isPlainContainer(value)) return false;
    return (value as { [losslessBrand]?: unknown })[losslessBrand] === true;
  }
}

const losslessBrand = Symbol.for("agentstream.LosslessInteger");
Object.defineProperty(LosslessInteger.prototype, losslessBrand, { value: true });

/** True for a JSON object: not null, an array or a LosslessInteger. */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  if (typeof value !== "object" || value === null) return false;
  // What JSON.parse makes, answered from the prototype alone (every wire read asks this).
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return true;
  return !Array.isArray(value) && !LosslessInteger.is(value);
}

/**
 * An object or array as JSON.parse makes them (or `Object.create(null)`): never a LosslessInteger,
 * of this copy of the package or another. Asked first because looking for the brand on the many
 * shapes of parsed records is a slow, megamorphic property lookup, and this is on every wire read.
 */
function isPlainContainer(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
}
