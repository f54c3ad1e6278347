/**
 * Pure redaction: a string or a JSON value in, the same with every secret replaced by
 * `[REDACTED:<kind>]`. The rules are in rules.ts; the streaming twin is create-stream-redactor.ts.
 */
import type { JsonValue } from "../../model/events.ts";
import { LosslessInteger } from "../../model/lossless-integer.ts";
import { RULES, type RedactionKind } from "./rules.ts";

/** How many secrets of each kind were replaced, e.g. `{ "github-token": 2 }`. Kinds with none are absent. */
export type RedactionCounts = Partial<Record<RedactionKind, number>>;

/** The text that replaces a secret of `kind`. */
function redactionMarker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

/** One keyword of a rule, and the character of it that the triggers are anchored on. */
interface Keyword {
  readonly text: string;
  readonly ignoreCase: boolean;
  /** Index of the anchor in `text`. */
  readonly at: number;
}

/**
 * The characters a trigger is preferably anchored on, the best first: rare in agent output, or separators whose
 * neighbours rule most of them out at once (`_` in `ghp_`, `-` in `sk-`, `.` in `ya29.`); then upper-case and
 * lower-case letters, rarest first in tool output. A regular expression finds its anchor with a fast character-class
 * scan before it looks around, and the skimmer's byte scan stops only at anchors: the fewer places they occur, the
 * faster both run. Tool output is not prose: the letters of `iVBORw0KGgo`, which begins every PNG image sent as
 * base64, come last of their case, and `k` of the `ok` that test runners print on every line comes after `y`.
 */
const ANCHOR_PREFERENCE = "_.:-JAzwWZQXYPFMUCLDHSNITEVBGROK0123456789qxjvbygpfmucldrhsnioatek/=+";

function anchorOf(text: string, ignoreCase: boolean): number {
  // Where case is ignored, both cases are anchors: the commoner one counts.
  const rank = (c: string): number =>
    Math.max(
      ...(ignoreCase ? [c.toLowerCase(), c.toUpperCase()] : [c]).map((x) => {
        const r = ANCHOR_PREFERENCE.indexOf(x);
        return r < 0 ? ANCHOR_PREFERENCE.length : r;
      }),
    );
  let best = 0;
  for (let i = 1; i < text.length; i++) if (rank(text.charAt(i)) < rank(text.charAt(best))) best = i;
  return best;
}

/** Every rule's keywords, once each. */
const KEYWORDS: readonly Keyword[] = [
  ...new Map(
    RULES.flatMap((rule) => rule.keywords.map((text) => ({ text, ignoreCase: rule.ignoreCase, at: anchorOf(text, rule.ignoreCase) }))).map(
      (keyword) => [`${keyword.ignoreCase}:${keyword.text}`, keyword] as const,
    ),
  ).values(),
];

/** The characters an anchor may be (both cases of a keyword that ignores case). */
const anchorChars = (keyword: Keyword): string[] => {
  const c = keyword.text.charAt(keyword.at);
  return keyword.ignoreCase && c.toLowerCase() !== c.toUpperCase() ? [c.toLowerCase(), c.toUpperCase()] : [c];
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
/** Literal text as an expression, each letter as `[aA]` where case is ignored. */
function literal(text: string, ignoreCase: boolean): string {
  if (!ignoreCase) return escapeRegExp(text);
  return [...text].map((c) => (c.toLowerCase() === c.toUpperCase() ? escapeRegExp(c) : `[${c.toLowerCase()}${c.toUpperCase()}]`)).join("");
}

/**
 * One cheap test that every secret passes (made from every rule's keywords): most strings fail it and are returned
 * untouched. Each keyword is found from its anchor character (ANCHOR_PREFERENCE), the rest of the keyword tested
 * around it: `_(?<=ghp_)`, `A(?:KIA)`.
 */
export const ANY_TRIGGER: RegExp = (() => {
  const byAnchor = new Map<string, string[]>();
  for (const keyword of KEYWORDS) {
    const before = literal(keyword.text.slice(0, keyword.at), keyword.ignoreCase);
    const after = literal(keyword.text.slice(keyword.at + 1), keyword.ignoreCase);
    for (const c of anchorChars(keyword)) {
      const alternatives = byAnchor.get(c) ?? [];
      alternatives.push(`${before === "" ? "" : `(?<=${before}.)`}${after}`);
      byAnchor.set(c, alternatives);
    }
  }
  const branches = [...byAnchor].map(([c, alternatives]) => `${escapeRegExp(c)}(?:${alternatives.join("|")})`);
  return new RegExp(branches.join("|"));
})();

/** How far a keyword reaches before its anchor and after it, in characters (the streaming redactor's windows). */
export const TRIGGER_REACH = {
  before: Math.max(...KEYWORDS.map((k) => k.at)),
  after: Math.max(...KEYWORDS.map((k) => k.text.length - k.at - 1)),
};

/**
 * ANY_TRIGGER for a string's JSON text before it is decoded (its bytes read as Latin-1): true whenever the decoded
 * string holds a keyword, provided the text escapes no printable ASCII character (`\u0067hp_`, `:\/\/`; the
 * skimmer reads such strings in full): a keyword is printable ASCII without `"` or `\`, written as itself.
 */
export function mayHoldSecretText(raw: string): boolean {
  return ANY_TRIGGER.test(raw);
}

/**
 * `mayHoldSecretText` for the bytes of a string's JSON text, without making text of them: the keywords, which the
 * skimmer (framing/ndjson/_skim.ts `SkipCheck`) looks for within its own pass over each string it may skip, in
 * JavaScript or in its WebAssembly scan, from each keyword's anchor byte.
 */
export const mayHoldSecretRaw: { readonly keywords: readonly Keyword[] } = { keywords: KEYWORDS };

function count(counts: RedactionCounts | undefined, kind: RedactionKind): void {
  if (counts !== undefined) counts[kind] = (counts[kind] ?? 0) + 1;
}

/**
 * `text` with every secret replaced. Only secrets that start at or after `from` are replaced and
 * only `text.slice(from)` is returned: the streaming redactor passes text it already showed as
 * context (a URL's scheme, a header name) in front of the new text.
 */
export function redactText(text: string, counts?: RedactionCounts, from = 0): string {
  if (!ANY_TRIGGER.test(text)) return from === 0 ? text : text.slice(from);
  let out = text;
  for (const rule of RULES) {
    if (!rule.trigger.test(out)) continue;
    out = out.replace(rule.pattern, (match: string, context: string, secret: string, offset: number) => {
      // A secret that began in text already shown is left alone (the caller showed it on purpose).
      if (offset + context.length < from) return match;
      count(counts, rule.kind);
      return context + redactionMarker(rule.kind) + match.slice(context.length + secret.length);
    });
  }
  return from === 0 ? out : out.slice(from);
}

// Key names are compared in snake_case (`apiKey` → `api_key`); the credential word must be the last segment.
const SECRET_KEY =
  /(?:^|_)(?:password|passwd|passphrase|secret|token|api_key|apikey|access_key|secret_key|private_key|authorization|auth|credential|credentials|cookie|session_key|bearer)$/;

function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s]+/g, "_")
    .toLowerCase();
}

/** True when a key names a credential (`password`, `apiKey`, `GITHUB_TOKEN`; not `max_tokens`). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(snakeCase(key));
}

/**
 * A copy of `value` with secrets replaced: a string under a key that names a credential is replaced
 * whole (`key-name`), and every string is passed through `redactText`. Returns `value` itself
 * when nothing changed, so clean records cost no copy.
 */
export function redactValue(value: JsonValue, counts?: RedactionCounts): JsonValue {
  if (typeof value === "string") return redactText(value, counts);
  // A LosslessInteger is a number (its digits kept): nothing to redact, and it must stay itself.
  if (value === null || typeof value !== "object" || LosslessInteger.is(value)) return value;
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      const redacted = redactValue(item, counts);
      if (redacted !== item) {
        out ??= value.slice();
        out[i] = redacted;
      }
    }
    return out ?? value;
  }
  let out: { [key: string]: JsonValue } | undefined;
  for (const [key, inner] of Object.entries(value)) {
    let redacted: JsonValue;
    // Only a non-empty string is replaced whole: a number or a boolean under `token` is a count or
    // a flag, and changing its type would break the record's schema; objects are searched inside.
    if (typeof inner === "string" && inner !== "" && isSecretKey(key) && !inner.startsWith("[REDACTED")) {
      count(counts, "key-name");
      redacted = redactionMarker("key-name");
    } else redacted = redactValue(inner, counts);
    if (redacted === inner) continue;
    out ??= copyObject(value);
    // defineProperty, so a key named `__proto__` stays data.
    Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}

function copyObject(value: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [key, inner] of Object.entries(value))
    Object.defineProperty(out, key, { value: inner, enumerable: true, writable: true, configurable: true });
  return out;
}
