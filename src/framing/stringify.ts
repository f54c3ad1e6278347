/**
 * The one place output records become JSON text. Every writer goes through `stringifyRecord`, so
 * an integer the input wrote beyond 2^53 (a `LosslessInteger`) comes out digit for digit, in every
 * format, instead of as the double JSON.parse rounded it to.
 *
 * Node 20 has neither `JSON.rawJSON` nor reviver source access, so: while stringifying, each
 * LosslessInteger's `toJSON` returns a placeholder string carrying a per-process random nonce; the
 * placeholders (with their quotes) are then replaced by the digits. Records without one (nearly
 * all) cost one extra `includes` check and nothing else.
 */
import { type LosslessInteger, withLosslessJsonHook } from "../model/lossless-integer.ts";

// A NUL starts the placeholder: JSON.stringify writes it as `\u0000`, which no LosslessInteger
// placeholder can be confused with unless the input guesses this process's random nonce.
const nonce = Math.random().toString(36).slice(2, 12);
const placeholderPrefix = `\u0000lossless-${nonce}:`;
const placeholderInText = `"\\u0000lossless-${nonce}:`;
const placeholderPattern = new RegExp(`"\\\\u0000lossless-${nonce}:(\\d+)"`, "g");

/**
 * `JSON.stringify` that writes every LosslessInteger as its exact source digits.
 * @example
 * stringifyRecord({ id: new LosslessInteger("1104763548210798038") }) // '{"id":1104763548210798038}'
 */
export function stringifyRecord(value: unknown, space?: number): string {
  const sources: string[] = [];
  const text: string | undefined = withLosslessJsonHook(
    (integer: LosslessInteger) => `${placeholderPrefix}${sources.push(integer.source) - 1}`,
    () => JSON.stringify(value, null, space),
  );
  if (text === undefined) return "null"; // `undefined` or a function: JSON has no such value
  if (sources.length === 0 || !text.includes(placeholderInText)) return text;
  return text.replace(placeholderPattern, (_match, index: string) => sources[Number(index)] as string);
}
