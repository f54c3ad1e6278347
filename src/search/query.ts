/**
 * The query language, from user text to what the index is asked: words and "quoted phrases" become FTS5 string
 * literals (never FTS5 syntax: `OR`, `NEAR`, `*`, `:` and `^` typed by a user are text to find), a regex is compiled
 * with a typed error. Then the snippet: the lines around the first match, with every match's range.
 */
import { AgentStreamError } from "../errors.ts";
import type { MatchRange } from "./types.ts";

/** The trigram tokenizer indexes runs of 3 characters: a shorter term cannot use the index and is checked by scanning. */
const MIN_INDEXED_CHARS = 3;

/** The words and phrases of a query, lower-cased, empty ones dropped: `fix "the test"` → `["fix", "the test"]`. */
export function queryTerms(text: string): string[] {
  const terms: string[] = [];
  const pattern = /"([^"]*)"?|(\S+)/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const term = (match[1] ?? match[2] ?? "").trim().toLowerCase();
    if (term !== "" && !terms.includes(term)) terms.push(term);
  }
  return terms;
}

/** Count of characters as the tokenizer counts them (code points). */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * The FTS5 MATCH expression for the terms the index can find (3 characters or more): each a string literal (`"` doubled
 * inside), all of them required. Undefined when no term is long enough: the caller scans instead.
 */
export function ftsExpression(terms: readonly string[]): string | undefined {
  const indexed = terms.filter((term) => codePoints(term) >= MIN_INDEXED_CHARS);
  if (indexed.length === 0) return undefined;
  return indexed.map((term) => `"${term.replaceAll('"', '""')}"`).join(" AND ");
}

/**
 * A user's regex: `/pattern/flags`, or a bare pattern (case-insensitive). A pattern JavaScript rejects is the caller's
 * mistake: a typed error that says why.
 */
export function compileRegex(source: string): RegExp {
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(source);
  const pattern = slashed === null ? source : (slashed[1] as string);
  const flags = slashed === null ? "i" : (slashed[2] as string);
  if (pattern === "") throw new AgentStreamError("usage", "--regex needs a pattern");
  try {
    // `g` to find every match in a text, `d`/`y` would change what a match is: dropped.
    return new RegExp(pattern, `${flags.replace(/[gyd]/g, "")}g`);
  } catch (error) {
    throw new AgentStreamError(
      "usage",
      `--regex: not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Whether every term is in one of the texts (case-insensitive). */
export function holdsAll(terms: readonly string[], texts: readonly string[]): boolean {
  const lower = texts.map((text) => text.toLowerCase());
  return terms.every((term) => lower.some((text) => text.includes(term)));
}

/** Every match of the terms (case-insensitive) or the regex in `text`, in order, overlapping ones merged. */
export function matchRanges(text: string, matcher: readonly string[] | RegExp): MatchRange[] {
  const ranges: [number, number][] = [];
  if (matcher instanceof RegExp) {
    matcher.lastIndex = 0;
    for (let match = matcher.exec(text); match !== null; match = matcher.exec(text)) {
      if (match[0] === "") {
        matcher.lastIndex++;
        continue;
      }
      ranges.push([match.index, match.index + match[0].length]);
      if (ranges.length > 1000) break;
    }
  } else {
    // Lower-casing keeps lengths for the texts agents write; where it would not (a few letters), ranges are skipped.
    const lower = text.toLowerCase();
    if (lower.length !== text.length) return [];
    for (const term of matcher) {
      for (let at = lower.indexOf(term); at !== -1 && ranges.length < 1000; at = lower.indexOf(term, at + term.length)) {
        ranges.push([at, at + term.length]);
      }
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/** Characters of context kept on each side of the first match when its line is long. */
const LINE_CONTEXT = 120;
/** Lines shown before and after the line of the first match. */
const CONTEXT_LINES = 1;

/**
 * The lines around the first match (one before, one after; a long line cut to the match's neighbourhood, `…` where
 * cut), with the ranges of the matches inside it. No match: the text's start.
 */
export function snippetOf(text: string, ranges: readonly MatchRange[]): { snippet: string; ranges: MatchRange[] } {
  const first = ranges[0] ?? [0, 0];
  let from = first[0];
  for (let lines = 0; from > 0; from--) {
    if (text.charCodeAt(from - 1) === 10 && ++lines > CONTEXT_LINES) break;
  }
  let to = first[1];
  for (let lines = 0; to < text.length; to++) {
    if (text.charCodeAt(to) === 10 && ++lines > CONTEXT_LINES) break;
  }
  let prefix = "";
  let suffix = "";
  if (first[0] - from > LINE_CONTEXT * 2) {
    from = first[0] - LINE_CONTEXT;
    prefix = "…";
  }
  if (to - first[1] > LINE_CONTEXT * 2) {
    to = first[1] + LINE_CONTEXT;
    suffix = "…";
  }
  const shift = prefix.length - from;
  const inside = ranges
    .filter(([start, end]) => start >= from && end <= to)
    .map(([start, end]): MatchRange => [start + shift, end + shift]);
  return { snippet: prefix + text.slice(from, to) + suffix, ranges: inside };
}
