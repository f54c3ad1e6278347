/**
 * Typed reads of untrusted wire records. A record is seen as `Wire<T>`, its declared wire type, but
 * every read still checks the runtime type (a field may be missing or have changed shape), and the
 * key must be a key of `T`: a misspelt field name does not compile. `str(v, "field")` in
 * src/dialect/json.ts reads any key; decoders use these instead, typed against their wire.ts.
 */
import type { JsonObject, JsonValue } from "../model/events.ts";
import { arr, bool, get, num, obj, str } from "./json.ts";

declare const wireOf: unique symbol;

/** A JSON object read as the wire type `T` (a phantom type: nothing is checked until a field is read). */
export type Wire<T> = JsonObject & { readonly [wireOf]?: T };

/** The keys of a wire type, as strings. */
export type WireKey<T> = Extract<keyof T, string>;

/** The wire object in `value` (any JSON object), seen as `T`; undefined when `value` is not an object. */
export function asWire<T>(value: JsonValue | undefined): Wire<T> | undefined {
  return obj(value);
}

/** The raw JSON at `key`, unchecked. */
export function field<T>(value: Wire<T> | undefined, key: WireKey<T>): JsonValue | undefined {
  return get(value, key);
}

/** The string at `key`, else undefined. */
export function fieldStr<T>(value: Wire<T> | undefined, key: WireKey<T>): string | undefined {
  return str(value, key);
}

/** The finite number at `key`, else undefined. */
export function fieldNum<T>(value: Wire<T> | undefined, key: WireKey<T>): number | undefined {
  return num(value, key);
}

/** The boolean at `key`, else undefined. */
export function fieldBool<T>(value: Wire<T> | undefined, key: WireKey<T>): boolean | undefined {
  return bool(value, key);
}

/** The array at `key`, else undefined. */
export function fieldArr<T>(value: Wire<T> | undefined, key: WireKey<T>): JsonValue[] | undefined {
  return arr(value, key);
}

/** The object at `key`, seen as its declared wire type, else undefined. */
export function fieldObj<T, K extends WireKey<T>>(value: Wire<T> | undefined, key: K): Wire<NonNullable<T[K]>> | undefined {
  return obj(value, key);
}

/** The objects of the array at `key`, each seen as the array's element type; non-objects are skipped. */
export function fieldItems<T, K extends WireKey<T>>(value: Wire<T> | undefined, key: K): Wire<ElementOf<T[K]>>[] {
  const out: Wire<ElementOf<T[K]>>[] = [];
  for (const entry of arr(value, key) ?? []) {
    const o = obj(entry);
    if (o !== undefined) out.push(o);
  }
  return out;
}

type ElementOf<A> = NonNullable<A> extends readonly (infer E)[] ? E : never;
