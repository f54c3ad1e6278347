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

/**
 * One cheap test that every secret (and every context a contextual rule needs) passes: most strings
 * fail it and are returned untouched. It is anchored on the separator each secret shape has (`_`
 * in `ghp_`, `-` in `sk-`, `.` in `ya29.`, `J` in `eyJ`, the `:` or `=` after a key name), which
 * irregexp finds with a fast character-class scan before it looks behind; this runs 2–4 times faster
 * than a plain list of prefixes, whose common first letters it would try at almost every position.
 */
export const ANY_TRIGGER = new RegExp(
  "[_.:=J-](?:" +
    [
      "(?<=(?:gh[pousr]|github|[sr]k|npm|hf|do[por])_)",
      "(?<=(?:gl(?:pat|dt|rt|ptt|cbt|ft|imt|agent|soat)|sk|xox[bpear]|xapp|pypi)-)",
      "(?<=(?:hooks|ya29|hvs)\\.)",
      "(?<=eyJ)",
      "(?<=:)(?=\\/\\/)",
      "(?<=uthorization[\"']?\\s{0,5}[:=])",
      "(?<=[aA][wW][sS]_?[sS][eE][cC][rR][eE][tT]_?[aA][cC][cC][eE][sS][sS]_?[kK][eE][yY][\"']?\\s{0,5}[:=])",
      "(?<=(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]{0,64}=)",
      "(?<=-)(?=----BEGIN)",
      "(?<=-)$",
    ].join("|") +
    ")|A(?:KIA|SIA|BIA|CCA|3T|Iza)",
);

/**
 * ANY_TRIGGER for a string's JSON text before it is decoded (its bytes read as Latin-1): true
 * whenever the decoded string could pass ANY_TRIGGER, provided the text escapes no printable ASCII
 * character (`\u0067hp_`, `:\/\/`; the skimmer reads such strings in full). The two triggers that
 * allow white space before their `:` or `=` (which JSON text may write as `\t`, and UTF-8 as
 * several bytes) count by their key name alone.
 */
const AWS_SECRET_KEY_NAME = /[aA][wW][sS]_?[sS][eE][cC][rR][eE][tT]/;

/** True when the JSON text of a string (undecoded, read as Latin-1, no printable ASCII escaped) could decode to one with a rule's trigger. */
export function mayHoldSecretText(raw: string): boolean {
  // Separate tests, each a fast scan: one alternation of them all would try every branch at every character.
  return ANY_TRIGGER.test(raw) || raw.includes("uthorization") || AWS_SECRET_KEY_NAME.test(raw);
}

const A_ = 1; // _  (gh?_, github_, sk_, rk_, npm_, hf_, do?_)
const A_DASH = 2; // -  (gl…t-, sk-, xox?-, xapp-, pypi-, -----BEGIN, a final -)
const A_DOT = 3; // .  (hooks., ya29., hvs.)
const A_J = 4; // J  (eyJ)
const A_COLON = 5; // :  (://)
const A_EQUALS = 6; // =  (KEY_NAME=, where the name is upper case)
const A_A = 7; // A  (AKIA, ASIA, ABIA, ACCA, A3T, AIza)
const A_Z = 8; // z  (uthorization)
const A_W = 9; // w, W  (aws secret)

/**
 * `mayHoldSecretText` for the bytes of a string's JSON text, without making text of them, in two steps the
 * skimmer runs inside its own pass over the string (framing/ndjson/_skim.ts `SkipCheck`): at each byte a
 * trigger is anchored on (its separator, or a rare letter of a key name: `z` of `authorization`, `w` of `aws`),
 * `near` tests the few bytes around it that the trigger needs; once the string's end is known, `confirm` runs
 * the regular expressions on a window of text around each anchor that passed (the window reaches further back
 * than any look-behind). The byte tests are necessary conditions of the expressions, so the answer is the
 * expressions' on the whole text, or yes where a window's edge misleads them.
 */
export const mayHoldSecretRaw = {
  // The skimmer's WebAssembly scan has these anchors and `anchored` built in (framing/ndjson/_skim-scan.wat).
  builtIn: "secret-triggers" as const,
  anchors: anchorTable(),
  near: anchored,
  confirm(bytes: Uint8Array, start: number, end: number, at: readonly number[]): boolean {
    return at.some((i) => mayHoldSecretText(windowText(bytes, i, start, end)));
  },
};

/** The same check in a pass of its own over `[start, end)` (what the skimmer does inside its pass). */
export function mayHoldSecretBytes(bytes: Uint8Array, start: number, end: number): boolean {
  const at: number[] = [];
  for (let i = start; i < end; i++) {
    const family = mayHoldSecretRaw.anchors[bytes[i] as number] ?? 0;
    if (family !== 0 && anchored(bytes, i, start, family)) at.push(i);
  }
  return at.length > 0 && mayHoldSecretRaw.confirm(bytes, start, end, at);
}

/** Per byte value, the trigger family anchored on it (0: none). */
function anchorTable(): Uint8Array {
  const table = new Uint8Array(256);
  for (const [chars, family] of [
    ["_", A_],
    ["-", A_DASH],
    [".", A_DOT],
    ["J", A_J],
    [":", A_COLON],
    ["=", A_EQUALS],
    ["A", A_A],
    ["z", A_Z],
    ["wW", A_W],
  ] as const) {
    for (const c of chars) table[c.charCodeAt(0)] = family;
  }
  return table;
}

const code = (c: string): number => c.charCodeAt(0);
/** A set of bytes as a table (an anchor is common in code: its tests are table reads). */
function byteSet(chars: string): Uint8Array {
  const table = new Uint8Array(257);
  for (const c of chars) table[c.charCodeAt(0)] = 1;
  return table;
}
/** Bytes outside the string read as 256, in no set. */
const isIn = (byte: number | undefined, set: Uint8Array): boolean => set[byte ?? 256] === 1;
const AFTER_GH_ETC = byteSet("pousrbkmf");
const BEFORE_THAT = byteSet("hsurpo");
const XOX = byteSet("bpear");
const PYPI_XAPP = byteSet("pi");
const HOOKS_HVS = byteSet("kv");
const AWS_A = byteSet("aA");
const AWS_S = byteSet("sS");
const AWS_KEY_START = byteSet("KSBC3I");

/**
 * The byte tests of the triggers anchored at `i` (necessary conditions only; the expressions decide). The
 * string starts at `start`; its end is not known yet: the byte after `i` may be its closing quote.
 */
function anchored(bytes: Uint8Array, i: number, start: number, family: number): boolean {
  const b1 = i - 1 >= start ? bytes[i - 1] : undefined;
  const b2 = i - 2 >= start ? bytes[i - 2] : undefined;
  const next = bytes[i + 1];
  switch (family) {
    case A_:
      return isIn(b1, AFTER_GH_ETC) && isIn(b2, BEFORE_THAT);
    case A_DASH:
      return (
        next === 0x22 /* the closing quote: a final "-" */ ||
        next === code("-") ||
        b1 === code("t") ||
        (b1 === code("k") && b2 === code("s")) ||
        (isIn(b1, XOX) && b2 === code("x")) ||
        (isIn(b1, PYPI_XAPP) && b2 === code("p"))
      );
    case A_DOT:
      return (b1 === code("s") && isIn(b2, HOOKS_HVS)) || (b1 === code("9") && b2 === code("2"));
    case A_J:
      return b1 === code("y") && b2 === code("e");
    case A_COLON:
      return next === code("/");
    case A_EQUALS:
      return b1 !== undefined && ((b1 >= 0x41 && b1 <= 0x5a) || (b1 >= 0x30 && b1 <= 0x39) || b1 === 0x5f);
    case A_A:
      return isIn(next, AWS_KEY_START);
    case A_Z:
      return b1 === code("i") && next === code("a");
    default:
      return isIn(b1, AWS_A) && isIn(next, AWS_S);
  }
}

/** Bytes of look-behind a trigger may need before its anchor (a key name of up to 64 characters and `SECRET` before `=`), and after. */
const WINDOW_BEFORE = 96;
const WINDOW_AFTER = 24;

/** The text around `i` read as Latin-1 (what a trigger is made of is ASCII). */
function windowText(bytes: Uint8Array, i: number, start: number, end: number): string {
  const from = Math.max(start, i - WINDOW_BEFORE);
  const to = Math.min(end, i + WINDOW_AFTER);
  return String.fromCharCode.apply(null, bytes.subarray(from, to) as unknown as number[]);
}

function count(counts: RedactionCounts | undefined, kind: RedactionKind): void {
  if (counts !== undefined) counts[kind] = (counts[kind] ?? 0) + 1;
}

/**
 * The last long text found to hold no secret. Agents often write one tool output twice in a record
 * (Claude's `tool_result` content and its `tool_use_result.stdout`): the copy is recognised by a
 * comparison, not scanned again. Bounded, so at most one such string is kept alive.
 */
let lastCleanText: string | undefined;
const REMEMBERED_CLEAN_MIN = 4096;
const REMEMBERED_CLEAN_MAX = 4 * 1024 * 1024;

/**
 * `text` with every secret replaced. Only secrets that start at or after `from` are replaced and
 * only `text.slice(from)` is returned: the streaming redactor passes text it already showed as
 * context (a URL's scheme, a header name) in front of the new text.
 */
export function redactText(text: string, counts?: RedactionCounts, from = 0): string {
  if (text === lastCleanText || !ANY_TRIGGER.test(text)) {
    if (text.length >= REMEMBERED_CLEAN_MIN && text.length <= REMEMBERED_CLEAN_MAX) lastCleanText = text;
    return from === 0 ? text : text.slice(from);
  }
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
