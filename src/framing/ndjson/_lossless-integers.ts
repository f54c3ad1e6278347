/**
 * Puts back the integers JSON.parse rounded. Node 20's JSON.parse gives no access to the source
 * text of a number, so a line that holds one (rare: the framer's inspection found it) is scanned a
 * second time for integer literals beyond ±(2^53 − 1), each with the path of keys and indices that
 * leads to it; the parsed value then gets a `LosslessInteger` at each such path.
 */
import type { JsonObject } from "../../model/events.ts";
import { LosslessInteger } from "../../model/lossless-integer.ts";

/** Replaces, in `value` (parsed from `text`), each rounded integer by its exact source digits; returns how many. */
export function restoreUnsafeIntegers(text: string, value: JsonObject): number {
  let restored = 0;
  for (const { path, source } of findUnsafeIntegers(text)) {
    if (setIfRounded(value, path, source)) restored++;
  }
  return restored;
}

interface UnsafeInteger {
  readonly path: readonly (string | number)[];
  readonly source: string;
}

/** Each open container while scanning: the key being read (objects) or the element index (arrays). */
interface Frame {
  readonly isArray: boolean;
  key: string | number;
}

/** Exact tokenizer over valid JSON text: the unsafe integer literals, in document order, with their paths. */
function findUnsafeIntegers(text: string): UnsafeInteger[] {
  const found: UnsafeInteger[] = [];
  const frames: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      let hasEscape = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          hasEscape = true;
          i++;
        } else if (d === 0x22) break;
      }
      const top = frames[frames.length - 1];
      if (expectKey && top !== undefined) {
        const raw = text.slice(start, i);
        top.key = hasEscape ? (JSON.parse(`"${raw}"`) as string) : raw;
        expectKey = false;
      }
    } else if (c === 0x7b /* { */) {
      frames.push({ isArray: false, key: "" });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      frames.push({ isArray: true, key: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
    } else if (c === 0x2c /* , */) {
      const top = frames[frames.length - 1];
      if (top?.isArray === true) top.key = (top.key as number) + 1;
      else expectKey = top !== undefined;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) i++;
      const literal = text.slice(start, i + 1);
      if (/^-?\d{16,}$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        found.push({ path: frames.map((frame) => frame.key), source: literal });
      }
    }
  }
  return found;
}

function isNumberChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || c === 0x2e /* . */ || c === 0x65 /* e */ || c === 0x45 /* E */ || c === 0x2b /* + */ || c === 0x2d /* - */
  );
}

/**
 * Sets the LosslessInteger at `path` if the value there is still the rounded number: with a
 * repeated key, JSON.parse kept the last value, which may not be this literal.
 */
function setIfRounded(root: JsonObject, path: readonly (string | number)[], source: string): boolean {
  let holder: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    if (typeof holder !== "object" || holder === null) return false;
    holder = (holder as Record<string | number, unknown>)[path[i] as string | number];
  }
  const last = path[path.length - 1];
  if (last === undefined || typeof holder !== "object" || holder === null) return false;
  const container = holder as Record<string | number, unknown>;
  if (!Object.hasOwn(container, last) || container[last] !== Number(source)) return false;
  container[last] = new LosslessInteger(source);
  return true;
}
