/**
 * Neutralises untrusted text before it reaches a terminal. A small scanner, not a regular
 * expression: it walks the text, recognises complete escape sequences, and turns every control
 * character into its visible Control Picture (ESC → ␛, BEL → ␇), so nothing the agent or a tool
 * printed can set the title, write the clipboard (OSC 52), move the cursor, or hide text.
 * With `keepSgr`, complete colour sequences (CSI … m) pass through and nothing else does.
 * See ../shared/docs/security-terminal-escapes.md.
 */

/** Characters that need the slow path: C0 (but TAB and LF), DEL, C1, bidi overrides and isolates. */
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

export interface SanitizeOptions {
  /** Keep complete SGR (colour) sequences. @defaultValue false */
  keepSgr?: boolean;
  /** Keep LF as a line break (true) or show it as ␊ (false). @defaultValue true */
  keepNewlines?: boolean;
}

/** Returns `text` safe to write to a terminal. */
export function sanitizeForTerminal(text: string, options: SanitizeOptions = {}): string {
  const keepNewlines = options.keepNewlines ?? true;
  if (!NEEDS_WORK.test(text) && (keepNewlines || !text.includes("\n"))) return text;
  const keepSgr = options.keepSgr === true;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x1b && keepSgr) {
      const end = sgrEnd(text, i);
      if (end !== -1) {
        out += text.slice(i, end);
        i = end - 1;
        continue;
      }
    }
    if (c === 0x0a) out += keepNewlines ? "\n" : "\u240a";
    else if (c === 0x09) out += "\t";
    else if (c < 0x20) out += String.fromCharCode(0x2400 + c);
    else if (c === 0x7f) out += "\u2421";
    else if (c >= 0x80 && c <= 0x9f) out += `<U+${c.toString(16).toUpperCase().padStart(4, "0")}>`;
    else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c) {
      out += `<U+${c.toString(16).toUpperCase()}>`;
    } else out += text[i];
  }
  return out;
}

/** End index (exclusive) of a complete `ESC [ params m` sequence at `start`, or -1. */
function sgrEnd(text: string, start: number): number {
  if (text.charCodeAt(start + 1) !== 0x5b) return -1;
  for (let i = start + 2; i < text.length && i < start + 64; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x6d) return i + 1; // m
    if (!((c >= 0x30 && c <= 0x39) || c === 0x3b || c === 0x3a)) return -1; // digits ; :
  }
  return -1;
}

/** Removes complete SGR sequences, for measuring or for modes without colour. */
export function stripSgr(text: string): string {
  if (!text.includes("\x1b")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 0x1b) {
      const end = sgrEnd(text, i);
      if (end !== -1) {
        i = end - 1;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}
