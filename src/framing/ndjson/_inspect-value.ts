/**
 * Structural checks on a parsed JSON value, done without recursion so that a hostile depth cannot
 * overflow the stack (JSON.parse copes with a million levels; JSON.stringify and every recursive
 * walker do not).
 */

/** What a single pass over a parsed value found. */
export interface ValueInspection {
  /** Deepest nesting of arrays and objects (a flat object is 1). */
  depth: number;
  /** Number of object keys in the whole value. */
  keyCount: number;
  /** `__proto__` anywhere, or `constructor` holding a `prototype`: the keys that pollute prototypes. */
  forbiddenKey: string | undefined;
  /** Integral numbers outside ±(2^53 − 1): JSON.parse already rounded them. */
  unsafeIntegers: number;
  /** Numbers that overflowed to ±Infinity (`1e400`). */
  overflows: number;
}

/** Walks `value` iteratively; stops descending (but reports `depth`) once `maxDepth` is passed. */
export function inspectValue(value: unknown, maxDepth: number): ValueInspection {
  const result: ValueInspection = { depth: 0, keyCount: 0, forbiddenKey: undefined, unsafeIntegers: 0, overflows: 0 };
  if (typeof value !== "object" || value === null) {
    checkNumber(value, result);
    return result;
  }
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop();
    const depth = depths.pop() as number;
    if (depth > result.depth) {
      result.depth = depth;
      if (depth > maxDepth) return result;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === "object" && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        } else if (typeof child === "number") checkNumber(child, result);
      }
    } else {
      const object = node as Record<string, unknown>;
      for (const key in object) {
        result.keyCount++;
        const child = object[key];
        if (isForbiddenKey(key, child)) result.forbiddenKey ??= key;
        if (typeof child === "object" && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        } else if (typeof child === "number") checkNumber(child, result);
      }
    }
  }
  return result;
}

/** True for a key that would set or reach a prototype if a later copy (`Object.assign`, `obj[key] = v`) wrote it. */
function isForbiddenKey(key: string, child: unknown): boolean {
  return key === "__proto__" || (key === "constructor" && typeof child === "object" && child !== null && Object.hasOwn(child, "prototype"));
}

/**
 * Deletes every forbidden key from `value` in place and returns where each was (`a.b.__proto__`).
 * JSON.parse makes `__proto__` an own data property, which is harmless here; deleting it keeps a
 * later merge or copy anywhere downstream from turning it into a prototype. Iterative, like
 * `inspectValue`, and only called when that found a forbidden key.
 */
export function removeForbiddenKeys(value: object): string[] {
  const removed: string[] = [];
  const stack: { node: unknown; path: string }[] = [{ node: value, path: "" }];
  while (stack.length > 0) {
    const { node, path } = stack.pop() as { node: unknown; path: string };
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push({ node: node[i], path: `${path}[${i}]` });
      continue;
    }
    const object = node as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const child = object[key];
      const at = path === "" ? key : `${path}.${key}`;
      if (isForbiddenKey(key, child)) {
        delete object[key];
        removed.push(at);
      } else stack.push({ node: child, path: at });
    }
  }
  return removed.sort();
}

function checkNumber(value: unknown, result: ValueInspection): void {
  if (typeof value !== "number") return;
  if (!Number.isFinite(value)) result.overflows++;
  else if (Number.isInteger(value) && !Number.isSafeInteger(value)) result.unsafeIntegers++;
}

/**
 * Whether the JSON text `text` (which parsed to a value with `keyCount` keys) repeats a key inside
 * one object.
 *
 * Fast path: every key ends with an unescaped `"` followed by `:`. Counting `":` overcounts only
 * when a string contains `\":` or starts with `:`, and undercounts only when white space stands
 * before a colon; JSON.parse keeps one key per name, so a duplicate makes the parsed count smaller.
 * If there is no white space before any colon and the counts agree, there is no duplicate. Otherwise
 * (rare: embedded JSON in strings, unusual spacing) a full scan decides.
 */
export function findDuplicateKey(text: string, keyCount: number): string | undefined {
  if (keyCount === 0) return undefined;
  // One pass over the colons (a native search; the loop runs once per colon, not per character).
  let quoteColons = 0;
  let spaceBeforeColon = false;
  for (let at = text.indexOf(":"); at !== -1; at = text.indexOf(":", at + 1)) {
    const before = text.charCodeAt(at - 1);
    if (before === 0x22 /* " */) quoteColons++;
    else if (before === 0x20 || before === 0x09 || before === 0x0a || before === 0x0d) spaceBeforeColon = true;
  }
  if (quoteColons === keyCount && !spaceBeforeColon) return undefined;
  return scanForDuplicateKey(text);
}

/** Exact tokenizer over JSON text: tracks the keys of each open object. Assumes `text` is valid JSON. */
function scanForDuplicateKey(text: string): string | undefined {
  // Each open container: a Set of keys for objects, null for arrays.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      let hasEscape = false;
      i++;
      while (i < text.length) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          hasEscape = true;
          i += 2;
          continue;
        }
        if (d === 0x22) break;
        i++;
      }
      const top = open[open.length - 1];
      if (expectKey && top) {
        const raw = text.slice(start, i);
        const key = hasEscape ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = open[open.length - 1] != null;
    }
  }
  return undefined;
}
