/**
 * Small readers for untyped wire JSON: each returns `undefined` instead of throwing when the field
 * is missing or has another type, so a decoder can never crash on a record that changed shape.
 * Only own properties are read (`Object.hasOwn`), so keys like `toString` or `__proto__` are data.
 */
import type { JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";

export function get(value: JsonValue | undefined, key: string): JsonValue | undefined {
  if (!isJsonObject(value)) return undefined;
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

export function str(value: JsonValue | undefined, key?: string): string | undefined {
  const v = key === undefined ? value : get(value, key);
  return typeof v === "string" ? v : undefined;
}

export function num(value: JsonValue | undefined, key?: string): number | undefined {
  const v = key === undefined ? value : get(value, key);
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function bool(value: JsonValue | undefined, key?: string): boolean | undefined {
  const v = key === undefined ? value : get(value, key);
  return typeof v === "boolean" ? v : undefined;
}

export function obj(value: JsonValue | undefined, key?: string): JsonObject | undefined {
  const v = key === undefined ? value : get(value, key);
  return isJsonObject(v) ? v : undefined;
}

export function arr(value: JsonValue | undefined, key?: string): JsonValue[] | undefined {
  const v = key === undefined ? value : get(value, key);
  return Array.isArray(v) ? v : undefined;
}

/** Reads a path of keys: `at(record, "message", "usage", "input_tokens")`. */
export function at(value: JsonValue | undefined, ...path: string[]): JsonValue | undefined {
  let v = value;
  for (const key of path) v = get(v, key);
  return v;
}

/** Drops keys whose value is `undefined`, so optional fields stay absent (exactOptionalPropertyTypes). */
export function compact<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = v;
  }
  return out as { [K in keyof T]: Exclude<T[K], undefined> };
}

/** Text of a tool result that may be a string, an array of content blocks, or structured JSON. */
export function textOf(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) {
      const text = typeof item === "string" ? item : str(item, "text");
      if (text !== undefined) parts.push(text);
      else parts.push(JSON.stringify(item));
    }
    return parts.join("\n");
  }
  return JSON.stringify(value);
}
