/**
 * The one place output records become JSON text. Every writer goes through `stringifyRecord`, so
 * an integer the input wrote beyond 2^53 (a `LosslessInteger`) comes out digit for digit, in every
 * format, instead of as the double JSON.parse rounded it to.
 *
 * Node 20 has neither `JSON.rawJSON` nor reviver source access, so a record that holds a
 * LosslessInteger (rare: a walk over its values says) is stringified with a replacer of its own
 * call that writes each one as a placeholder string carrying a per-process random nonce; the
 * placeholders (with their quotes) are then replaced by the digits. A record without one (nearly
 * all) is a plain `JSON.stringify`: a replacer would slow every value of it.
 */
import { LosslessInteger } from "../model/lossless-integer.ts";

// A NUL starts the placeholder: JSON.stringify writes it as `\u0000`, which no LosslessInteger
// placeholder can be confused with unless the input guesses this process's random nonce.
const nonce = Math.random().toString(36).slice(2, 12);
const placeholderPrefix = `\u0000lossless-${nonce}:`;
const placeholderPattern = new RegExp(`"\\\\u0000lossless-${nonce}:(\\d+)"`, "g");

/**
 * `JSON.stringify` that writes every LosslessInteger as its exact source digits.
 * @example
 * stringifyRecord({ id: new LosslessInteger("1104763548210798038") }) // '{"id":1104763548210798038}'
 */
export function stringifyRecord(value: unknown, space?: number): string {
  if (!mayHoldLosslessInteger(value, 0)) return JSON.stringify(value, null, space) ?? "null";
  const sources: string[] = [];
  // `this[key]` is the value before its `toJSON`: a LosslessInteger is seen before it becomes its double.
  function keepDigits(this: Record<string, unknown>, key: string, converted: unknown): unknown {
    const original = this[key];
    return LosslessInteger.is(original) ? `${placeholderPrefix}${sources.push(original.source) - 1}` : converted;
  }
  const text: string | undefined = JSON.stringify(value, keepDigits, space);
  if (text === undefined) return "null"; // `undefined` or a function: JSON has no such value
  if (sources.length === 0) return text;
  return text.replace(placeholderPattern, (_match, index: string) => sources[Number(index)] as string);
}

/** Past this depth the walk stops and says yes: the replacer's stringify then finds out (or throws on a cycle, as JSON.stringify does). */
const WALK_DEPTH = 256;

/**
 * True when `value` holds a LosslessInteger, or could (an object with a `toJSON` of its own, a very deep value):
 * a walk over objects and arrays, strings and numbers passed over at once.
 */
function mayHoldLosslessInteger(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth > WALK_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (mayHoldLosslessInteger(value[i], depth + 1)) return true;
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && typeof (value as { toJSON?: unknown }).toJSON === "function") return true;
  const record = value as Record<string, unknown>;
  for (const key in record) if (key === "toJSON" || mayHoldLosslessInteger(record[key], depth + 1)) return true;
  return false;
}
