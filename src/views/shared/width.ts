/**
 * Display width of sanitised text in terminal columns (wcwidth-like: East Asian wide and emoji are
 * 2, combining marks and joiners 0). Used only to cut one-line slots so they fit a row; when it is
 * wrong the terminal soft-wraps, which the append-only output tolerates.
 */

// Variation selectors (U+FE00–FE0F) are marks (\p{M}); listing them again here reads as a combining sequence to the linter.
const ZERO_WIDTH = /[\p{M}\u200b-\u200f\u2060-\u2064\ufeff]/u;

/** Columns one code point takes (the rule itself; the functions below remember it per code point). */
export function codePointWidth(cp: number, ch: string): number {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    cp === 0x2329 ||
    cp === 0x232a ||
    (cp >= 0x231a && cp <= 0x231b) ||
    (cp >= 0x23e9 && cp <= 0x23ec) ||
    cp === 0x23f0 ||
    cp === 0x23f3 ||
    (cp >= 0x25fd && cp <= 0x25fe) ||
    (cp >= 0x2614 && cp <= 0x2615) ||
    (cp >= 0x2648 && cp <= 0x2653) ||
    cp === 0x267f ||
    cp === 0x2693 ||
    cp === 0x26a1 ||
    (cp >= 0x26aa && cp <= 0x26ab) ||
    (cp >= 0x26bd && cp <= 0x26be) ||
    (cp >= 0x26c4 && cp <= 0x26c5) ||
    cp === 0x26ce ||
    cp === 0x26d4 ||
    cp === 0x26ea ||
    (cp >= 0x26f2 && cp <= 0x26f3) ||
    cp === 0x26f5 ||
    cp === 0x26fa ||
    cp === 0x26fd ||
    cp === 0x2705 ||
    (cp >= 0x270a && cp <= 0x270b) ||
    cp === 0x2728 ||
    cp === 0x274c ||
    cp === 0x274e ||
    (cp >= 0x2753 && cp <= 0x2755) ||
    cp === 0x2757 ||
    (cp >= 0x2795 && cp <= 0x2797) ||
    cp === 0x27b0 ||
    cp === 0x27bf ||
    (cp >= 0x2b1b && cp <= 0x2b1c) ||
    cp === 0x2b50 ||
    cp === 0x2b55 ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe10 && cp <= 0xfe19) ||
    (cp >= 0xfe30 && cp <= 0xfe6f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f004 && cp <= 0x1f004) ||
    cp === 0x1f0cf ||
    cp === 0x1f18e ||
    (cp >= 0x1f191 && cp <= 0x1f19a) ||
    (cp >= 0x1f200 && cp <= 0x1f251) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f680 && cp <= 0x1f6ff) ||
    (cp >= 0x1f7e0 && cp <= 0x1f7eb) ||
    (cp >= 0x1f90c && cp <= 0x1f9ff) ||
    (cp >= 0x1fa70 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/**
 * The widths of the code points met so far, each found once (plus one; 0: not yet): testing a mark by
 * regular expression per character was most of the cost of a line of non-Latin text. The astral
 * ones (emoji) in a map, kept small.
 */
const BMP_WIDTHS = new Uint8Array(0x10000);
const ASTRAL_WIDTHS = new Map<number, number>();
const MAX_ASTRAL_KEPT = 4096;

/** `codePointWidth`, remembered per code point. */
function columnsOf(cp: number): number {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  if (cp < 0x10000) {
    const known = BMP_WIDTHS[cp] as number;
    if (known !== 0) return known - 1;
    const width = codePointWidth(cp, String.fromCharCode(cp));
    BMP_WIDTHS[cp] = width + 1;
    return width;
  }
  let width = ASTRAL_WIDTHS.get(cp);
  if (width === undefined) {
    width = codePointWidth(cp, String.fromCodePoint(cp));
    if (ASTRAL_WIDTHS.size < MAX_ASTRAL_KEPT) ASTRAL_WIDTHS.set(cp, width);
  }
  return width;
}

/** The code point at `i` (a lone surrogate as itself, as the string iterator gives it). */
function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) return c;
  const next = text.charCodeAt(i + 1);
  return next >= 0xdc00 && next <= 0xdfff ? ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000 : c;
}

/** Columns `text` takes on one row (no newlines expected). */
export function displayWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    // Printable ASCII, most text, is one column each: no regular expression first (most measured text is a few words).
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      width++;
      continue;
    }
    const cp = codePointAt(text, i);
    width += columnsOf(cp);
    if (cp > 0xffff) i++;
  }
  return width;
}

/** `text` cut to at most `max` columns, ending in `…` when cut. */
export function cutToWidth(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max && /^[\x20-\x7e]*$/.test(text)) return { text, cut: false };
  if (displayWidth(text) <= max) return { text, cut: false };
  let width = 0;
  let out = "";
  for (const ch of text) {
    const w = columnsOf(ch.codePointAt(0) as number);
    if (width + w > max - 1) break;
    width += w;
    out += ch;
  }
  return { text: `${out}…`, cut: true };
}

/** Our own and kept escape sequences (SGR, OSC 8 links): they take no columns. */
export const ESCAPE = /\x1b\[[0-9;:]*m|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** Columns `text` takes on one row, not counting SGR and OSC 8 sequences. */
export function visibleWidth(text: string): number {
  return displayWidth(text.includes("\x1b") ? text.replace(ESCAPE, "") : text);
}

/**
 * `text` split where it reaches `max` columns (at least one character goes first, so a loop
 * always ends); escape sequences are never split and take no columns.
 */
export function splitAtWidth(text: string, max: number): [string, string] {
  let width = 0;
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) === 0x1b) {
      ESCAPE.lastIndex = i;
      const match = ESCAPE.exec(text);
      if (match !== null && match.index === i) {
        i += match[0].length;
        continue;
      }
    }
    const cp = codePointAt(text, i);
    const w = columnsOf(cp);
    if (width + w > max && i > 0) break;
    width += w;
    i += cp > 0xffff ? 2 : 1;
  }
  return [text.slice(0, i), text.slice(i)];
}
