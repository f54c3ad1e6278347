/**
 * Streaming redaction for one channel of text that arrives in pieces (a message's deltas, a tool's
 * output chunks, a tool call's input deltas). A token split across two pieces must still be caught,
 * so the redactor holds back the shortest tail that could still grow into a secret (`sk-ant-api03-x`,
 * `ghp_`, `Authorization: Bearer abc`) and shows everything before it at once. Text that cannot
 * become a secret is never delayed.
 */
import { CONTEXTUAL_RULES, RULES, TOKEN_FIRST_CHARS, TOKEN_PARTIAL } from "./rules.ts";

const PRIVATE_KEY_RULE = RULES.find((rule) => rule.kind === "private-key-block") as (typeof RULES)[number];
/**
 * The contextual rules with a global copy of their trigger, so it is looked for only near the tail:
 * their context (a URL's scheme, `Authorization: Bearer`, `API_TOKEN=`) holds the trigger, and lies
 * in the last run without whitespace or within TRIGGER_OVERLAP characters before the held tail.
 */
const CONTEXTUAL = CONTEXTUAL_RULES.map((rule) => ({ rule, near: new RegExp(rule.trigger.source, `${rule.trigger.flags}g`) }));
import { ANY_TRIGGER, redactText, TRIGGER_REACH, type RedactionCounts } from "./redact-text.ts";

/**
 * ANY_TRIGGER from a given position (`lastIndex`); its look-behinds still see the text before it. Also a dash at the
 * end of the text: the start of a key block's `-----BEGIN` whose rest the next piece brings.
 */
const TRIGGER_FROM = new RegExp(`${ANY_TRIGGER.source}|-$`, "g");
/**
 * How far past its anchor character a trigger reads (`-` then `----BEGIN`, `:` then `//`, `A` then `KIA`): a
 * trigger anchored earlier than this before the end of the text already shown was seen, or not, by the scan that
 * showed it.
 */
const TRIGGER_LOOKAHEAD = TRIGGER_REACH.after + 1;

/** Text already shown that is kept as context for the rules that need one (a URL scheme, a key name). */
const CONTEXT_CHARS = 384;
/** Longer than any trigger with its look-behind (a key name of up to 64 characters before `=`), so a cut between two pieces is still seen. */
const TRIGGER_OVERLAP = 96;
/** A tail held longer than this is let go (and redacted as far as it can be): memory stays bounded. */
export const MAX_HELD_CHARS = 20_000;

/** Redacts one channel of streamed text. */
export interface StreamRedactor {
  /** Takes the next piece; returns the redacted text that can be shown now (possibly empty). */
  push(text: string): string;
  /** The channel ended: returns the redacted rest. */
  flush(): string;
  /** Characters held back right now. */
  readonly held: number;
}

/**
 * Creates a streaming redactor; `counts` receives one count per secret replaced.
 * @example
 * const r = createStreamRedactor();
 * r.push("token: ghp"); // "token: "
 * r.push("_" + "a".repeat(36) + " ok"); // "[REDACTED:github-token] ok"
 */
export function createStreamRedactor(counts?: RedactionCounts): StreamRedactor {
  let context = "";
  let held = "";
  /** Characters shown since a trigger was last seen: past CONTEXT_CHARS the context cannot matter. */
  let sinceTrigger = Infinity;
  /** Whether the last scan for a trigger found one (its window then needs scanning whole again). */
  let lastTriggered = true;

  function release(all: string, cut: number): string {
    // The hot path (many small deltas): scan only the new text, plus a few characters of context
    // for a trigger cut in two, unless a recent trigger makes the context matter.
    const freshStart = Math.max(0, context.length - TRIGGER_OVERLAP);
    const fresh = all.slice(freshStart, cut);
    // The window's start overlaps the last scan's end, which ended where the context ends: when that scan
    // found nothing, only a trigger anchored near its end (whose look-ahead reaches into the new text) or
    // later can be new. Look-behinds still read the whole window.
    TRIGGER_FROM.lastIndex = lastTriggered ? 0 : Math.max(0, context.length - TRIGGER_LOOKAHEAD - freshStart);
    const triggered = TRIGGER_FROM.test(fresh);
    lastTriggered = triggered;
    sinceTrigger = triggered ? 0 : sinceTrigger + (cut - context.length);
    const shown =
      triggered || sinceTrigger < CONTEXT_CHARS ? redactText(all.slice(0, cut), counts, context.length) : all.slice(context.length, cut);
    context = all.slice(Math.max(0, cut - CONTEXT_CHARS), cut);
    return shown;
  }

  return {
    push(text) {
      if (text.length === 0) return "";
      const all = context + held + text;
      let cut = holdStart(all, context.length);
      if (all.length - cut > MAX_HELD_CHARS) cut = all.length;
      held = all.slice(cut);
      return release(all, cut);
    },
    flush() {
      const all = context + held;
      held = "";
      const shown = release(all, all.length);
      context = "";
      return shown;
    },
    get held() {
      return held.length;
    },
  };
}

/** Where the shortest tail of `text` that could still grow into a secret starts (`text.length` when none). */
export function holdStart(text: string, from = 0): number {
  // Every secret's value is a run without whitespace (a private key block aside), so a tail that
  // could grow into one starts after the last whitespace.
  const runStart = lastWhitespace(text) + 1;
  const run = Math.max(from, runStart);
  const hasBegin = text.includes("-----BEGIN", Math.max(0, from - 16));
  if (run === text.length && !hasBegin && !text.includes("-----BEGIN")) return text.length;
  let start = text.length;
  if (run < start) {
    // One scan for every token rule, from the first place one can start (most tails have none).
    const candidate = firstTokenStart(text, run);
    if (candidate < start) {
      TOKEN_PARTIAL.lastIndex = candidate;
      const found = TOKEN_PARTIAL.exec(text);
      if (found !== null) start = Math.max(from, found.index);
    }
    // From the start of the last run without whitespace (a URL's or an assignment's context has
    // none, however long) or TRIGGER_OVERLAP before the tail (a header's context may have some).
    const nearFrom = Math.max(0, Math.min(runStart, run - TRIGGER_OVERLAP));
    // Every contextual rule's context ends in a `:` or `=` of its trigger (`://…:`, `Authorization:
    // Bearer `, `KEY=`), a few characters before the value, which starts at `run` or later: with neither
    // in the window, no partial of theirs can match (most deltas of prose).
    const mayHaveContext = text.indexOf(":", nearFrom) !== -1 || text.indexOf("=", nearFrom) !== -1;
    for (const { rule, near } of mayHaveContext ? CONTEXTUAL : []) {
      // A contextual rule's partial needs its context in the text, and the trigger is part of it.
      if (run >= start) continue;
      near.lastIndex = nearFrom;
      if (!near.test(text)) continue;
      rule.partial.lastIndex = run;
      const match = rule.partial.exec(text);
      if (match !== null && match.index < start) start = Math.max(from, match.index);
    }
  }
  const scanFrom = hasBegin ? from : run;
  // Every alternative of the key block's partial starts with a dash.
  if (scanFrom < start && text.includes("-", scanFrom)) {
    PRIVATE_KEY_RULE.partial.lastIndex = scanFrom;
    const found = PRIVATE_KEY_RULE.partial.exec(text);
    if (found !== null && found.index < start) start = Math.max(from, found.index);
  }
  return start;
}

/**
 * The first position at or after `from` where a token rule's partial match could start: one of
 * their first characters at a word boundary (`\b`, no `u` flag: word characters are [A-Za-z0-9_]),
 * or right after a JSON escape (`\n`, `\r`, `\t`), as the rules' START allows; `text.length` when none.
 */
function firstTokenStart(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    if (!TOKEN_FIRST_CHARS.has(text.charCodeAt(at))) continue;
    if (at === 0 || !isWordChar(text.charCodeAt(at - 1))) return at;
    const before = text.charCodeAt(at - 1);
    if ((before === 0x6e || before === 0x72 || before === 0x74) && at >= 2 && text.charCodeAt(at - 2) === 0x5c) return at;
  }
  return text.length;
}

function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function lastWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11) return i;
  }
  return -1;
}
